"""Seed 000's own tests, plus the behaviour our contracts add (typed payloads, UTC...)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pydantic
import pytest
from hypothesis import given, settings

from rilai_desktop.contracts import (
    MODULATOR_NAMES,
    PAYLOAD_MODELS,
    SENSOR_NAMES,
    STANCE_DIMENSIONS,
    AgentManifest,
    AgentOutput,
    Claim,
    ClaimType,
    CouncilDecision,
    EngineEvent,
    EventKind,
    GlobalModulators,
    SpeechAct,
    StanceVector,
)
from tests.contracts import strategies as S


def event(kind: EventKind = EventKind.TURN_STARTED, payload: Any = None, **kw: Any) -> EngineEvent:
    if payload is None:
        payload = {"user_input": "hello"} if kind is EventKind.TURN_STARTED else {}
    args: dict[str, Any] = {
        "session_id": "test-session",
        "turn_id": 1,
        "seq": 0,
        "ts_monotonic": 1000.0,
        "kind": kind,
        "payload": payload,
    }
    return EngineEvent(**{**args, **kw})


# ── seed 000: TestEngineEvent ────────────────────────────────────────────────


class TestEngineEvent:
    def test_event_creation(self) -> None:
        # verbatim from the seed: TURN_STARTED with only user_input in the payload
        ev = EngineEvent(
            session_id="test-session",
            turn_id=1,
            seq=0,
            ts_monotonic=1000.0,
            kind=EventKind.TURN_STARTED,
            payload={"user_input": "hello"},
        )
        assert ev.session_id == "test-session"
        assert ev.turn_id == 1
        assert ev.kind == EventKind.TURN_STARTED
        assert ev.schema_version == 1

    def test_event_immutable(self) -> None:
        # The seed builds TURN_STARTED with no payload here; our typed payloads require
        # user_input for that kind, so the event carries a valid payload.
        ev = event()
        with pytest.raises(pydantic.ValidationError):
            ev.turn_id = 2  # type: ignore[misc]
        assert ev.turn_id == 1

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("session_id", "other"),
            ("seq", 5),
            ("kind", EventKind.ERROR),
            ("payload", {"user_input": "x"}),
            ("ts_wall", datetime(2024, 1, 1, tzinfo=UTC)),
            ("schema_version", 2),
        ],
    )
    def test_frozen_refuses_every_field(self, field: str, value: Any) -> None:
        ev = event()
        before = getattr(ev, field)
        with pytest.raises(pydantic.ValidationError) as info:
            setattr(ev, field, value)
        assert info.value.errors()[0]["type"] == "frozen_instance"
        assert getattr(ev, field) == before
        with pytest.raises(pydantic.ValidationError):
            delattr(ev, field)

    def test_model_copy_is_the_way_to_change(self) -> None:
        ev = event()
        later = ev.model_copy(update={"seq": 1})
        assert (ev.seq, later.seq) == (0, 1)

    def test_ts_wall_default_is_aware_utc(self) -> None:
        before = datetime.now(UTC)
        ev = event()
        after = datetime.now(UTC)
        assert ev.ts_wall.tzinfo is not None
        assert ev.ts_wall.utcoffset() == timedelta(0)
        assert before <= ev.ts_wall <= after
        assert ev.model_dump_json().count('Z"') >= 1 or "+00:00" in ev.model_dump_json()

    def test_json_schema(self) -> None:
        schema = EngineEvent.model_json_schema()
        json.dumps(schema)  # it is plain JSON
        assert set(schema["required"]) >= {"session_id", "turn_id", "seq", "ts_monotonic", "kind"}
        props = schema["properties"]
        assert props["turn_id"]["minimum"] == 0
        assert props["seq"]["minimum"] == 0
        kinds = schema["$defs"]["EventKind"]["enum"]
        assert set(kinds) == {k.value for k in EventKind}


# ── event kinds ──────────────────────────────────────────────────────────────

SEED_EVENT_KINDS = {
    "TURN_STARTED": "turn_started",
    "TURN_STAGE_CHANGED": "turn_stage_changed",
    "TURN_COMPLETED": "turn_completed",
    "SENSORS_FAST_UPDATED": "sensors_fast_updated",
    "SENSORS_ENSEMBLE_UPDATED": "sensors_ensemble_updated",
    "AGENT_STARTED": "agent_started",
    "AGENT_COMPLETED": "agent_completed",
    "AGENT_FAILED": "agent_failed",
    "WAVE_STARTED": "wave_started",
    "WAVE_COMPLETED": "wave_completed",
    "WORKSPACE_PATCHED": "workspace_patched",
    "STANCE_UPDATED": "stance_updated",
    "MODULATORS_UPDATED": "modulators_updated",
    "DELIB_ROUND_STARTED": "delib_round_started",
    "DELIB_ROUND_COMPLETED": "delib_round_completed",
    "CONSENSUS_UPDATED": "consensus_updated",
    "COUNCIL_DECISION_MADE": "council_decision_made",
    "VOICE_RENDERED": "voice_rendered",
    "CRITICS_UPDATED": "critics_updated",
    "SAFETY_INTERRUPT": "safety_interrupt",
    "MEMORY_RETRIEVED": "memory_retrieved",
    "MEMORY_CANDIDATES_PROPOSED": "memory_candidates_proposed",
    "MEMORY_COMMITTED": "memory_committed",
    "MODEL_CALL_STARTED": "model_call_started",
    "MODEL_CALL_COMPLETED": "model_call_completed",
    "TIMING_CHECKPOINT": "timing_checkpoint",
    "DAEMON_TICK": "daemon_tick",
    "PROACTIVE_NUDGE": "proactive_nudge",
    "MODULATORS_DECAYED": "modulators_decayed",
    "SESSION_STARTED": "session_started",
    "SESSION_ENDED": "session_ended",
    "ERROR": "error",
}

# kinds whose payload the seed documents (each must have a payload model)
SEED_DOCUMENTED_PAYLOADS = {
    "TURN_STARTED", "TURN_STAGE_CHANGED", "TURN_COMPLETED", "SENSORS_FAST_UPDATED",
    "AGENT_STARTED", "AGENT_COMPLETED", "AGENT_FAILED", "WORKSPACE_PATCHED", "STANCE_UPDATED",
    "DELIB_ROUND_STARTED", "DELIB_ROUND_COMPLETED", "CONSENSUS_UPDATED",
    "COUNCIL_DECISION_MADE", "VOICE_RENDERED", "CRITICS_UPDATED", "SAFETY_INTERRUPT",
    "MEMORY_RETRIEVED", "MEMORY_COMMITTED", "MODEL_CALL_COMPLETED", "DAEMON_TICK",
    "PROACTIVE_NUDGE", "ERROR",
}  # fmt: skip


@pytest.mark.parametrize(("name", "value"), sorted(SEED_EVENT_KINDS.items()))
def test_seed_event_kind_exists(name: str, value: str) -> None:
    assert EventKind[name].value == value
    assert EventKind(value) is EventKind[name]


# seed 003's MemoryEventType values, exactly
SEED_003_MEMORY_KINDS = {
    "MEMORY_RESOURCE_STORED": "memory.resource_stored",
    "MEMORY_ITEMS_EXTRACTED": "memory.items_extracted",
    "MEMORY_CATEGORY_CREATED": "memory.category_created",
    "MEMORY_CATEGORY_CONSOLIDATED": "memory.category_consolidated",
    "MEMORY_RETRIEVAL_PERFORMED": "memory.retrieval_performed",
    "MEMORY_RESOURCE_DELETED": "memory.resource_deleted",
    "MEMORY_ITEM_DELETED": "memory.item_deleted",
}


def test_event_kinds_are_the_seeds_plus_ours() -> None:
    assert EventKind.TURN_ABORTED.value == "turn_aborted"
    assert {k.name: k.value for k in EventKind} == {
        **SEED_EVENT_KINDS,
        **SEED_003_MEMORY_KINDS,
        "TURN_ABORTED": "turn_aborted",
        "TURN_RETRACTED": "turn_retracted",
        "MEMORY_ITEM_UPDATED": "memory.item_updated",
        "MEMORY_INDEX_REBUILT": "memory.index_rebuilt",
        "MEMORY_IMPORTED": "memory.imported",
        "MEMORY_USED": "memory.used",
        "MEMORY_ENTRY_CHANGED": "memory.entry_changed",
        "MEMORY_SWITCHED": "memory.switched",
        "MEMORY_FORGOTTEN": "memory.forgotten",
        "API_REQUEST": "api.request",
        "NUDGE_SEEN": "nudge_seen",
    }
    assert all(isinstance(k, str) for k in EventKind)  # str enum: JSON-friendly


def test_payload_models_cover_the_documented_kinds() -> None:
    ours = {
        "TURN_ABORTED",
        "TURN_RETRACTED",
        "MEMORY_ITEM_UPDATED",
        "MEMORY_INDEX_REBUILT",
        "MEMORY_IMPORTED",
        "MEMORY_USED",
        "MEMORY_ENTRY_CHANGED",
        "MEMORY_SWITCHED",
        "MEMORY_FORGOTTEN",
        "MODULATORS_DECAYED",
        "API_REQUEST",
        "NUDGE_SEEN",
    }
    assert {k.name for k in PAYLOAD_MODELS} == SEED_DOCUMENTED_PAYLOADS | set(
        SEED_003_MEMORY_KINDS
    ) | ours


def test_sensor_names_are_the_seed_nine() -> None:
    assert list(SENSOR_NAMES) == [
        "vulnerability",
        "advice_requested",
        "relational_bid",
        "ai_feelings_probe",
        "humor_masking",
        "rupture",
        "ambiguity",
        "safety_risk",
        "prompt_injection",
    ]


def test_dimension_and_modulator_names() -> None:
    assert STANCE_DIMENSIONS == (
        "valence", "arousal", "control", "certainty", "safety", "closeness", "curiosity", "strain"
    )  # fmt: skip
    assert MODULATOR_NAMES == ("arousal", "fatigue", "time_pressure", "social_risk")


# ── typed payloads ───────────────────────────────────────────────────────────

GOOD_MODEL_CALL = {"model": "m", "prompt_tokens": 1, "completion_tokens": 2, "latency_ms": 3}

# (kind, payload, text that must appear in the error)
BAD_PAYLOADS: list[tuple[EventKind, dict[str, Any], list[str]]] = [
    (EventKind.MODEL_CALL_COMPLETED, {**GOOD_MODEL_CALL, "prompt_tokens": -1}, ["prompt_tokens"]),
    (EventKind.MODEL_CALL_COMPLETED, {**GOOD_MODEL_CALL, "model": ""}, ["model"]),
    (EventKind.MODEL_CALL_COMPLETED, {"model": "m"}, ["prompt_tokens", "latency_ms"]),
    (
        EventKind.MODEL_CALL_COMPLETED,
        {**GOOD_MODEL_CALL, "reasoning_tokens": -5},
        ["reasoning_tokens"],
    ),
    (EventKind.SENSORS_FAST_UPDATED, {"sensors": {"telepathy": 0.5}}, ["sensors", "telepathy"]),
    (EventKind.SENSORS_FAST_UPDATED, {"sensors": {"rupture": 1.5}}, ["sensors", "rupture", "1.5"]),
    (EventKind.SENSORS_FAST_UPDATED, {"sensors": {"rupture": -0.1}}, ["sensors", "rupture"]),
    (EventKind.SENSORS_FAST_UPDATED, {}, ["sensors"]),
    (EventKind.TURN_STARTED, {}, ["user_input"]),
    (EventKind.TURN_STARTED, {"turn_id": 1}, ["user_input"]),
    (EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": -1}, ["turn_id"]),
    (EventKind.TURN_STAGE_CHANGED, {"stage": ""}, ["stage"]),
    (EventKind.TURN_COMPLETED, {"total_time_ms": -1}, ["total_time_ms"]),
    (EventKind.TURN_ABORTED, {"reason": "crash", "last_seq": -1}, ["last_seq"]),
    (EventKind.TURN_RETRACTED, {"turn_id": 0, "reason": "edit"}, ["turn_id"]),
    (EventKind.TURN_RETRACTED, {"turn_id": 3, "reason": "deleted"}, ["reason"]),
    (EventKind.AGENT_STARTED, {"agent_id": ""}, ["agent_id"]),
    (EventKind.AGENT_FAILED, {"agent_id": "a.b"}, ["error"]),
    (
        EventKind.AGENT_COMPLETED,
        {
            "agent_id": "a.b",
            "observation": "o",
            "salience": 1.2,
            "urgency": 4,
            "confidence": 0,
            "claims": [],
            "processing_time_ms": 0,
        },
        ["salience", "urgency"],
    ),
    (
        EventKind.DELIB_ROUND_COMPLETED,
        {"round": 0, "consensus": 2.0, "active_claims": 0},
        ["consensus"],
    ),
    (EventKind.CONSENSUS_UPDATED, {"level": -0.5, "by_type": {}}, ["level"]),
    (
        EventKind.COUNCIL_DECISION_MADE,
        {"speak": True, "urgency": "low", "intent": "x"},
        ["key_points"],
    ),
    (EventKind.CRITICS_UPDATED, {"results": [{"critic": "c"}]}, ["results", "passed"]),
    (EventKind.STANCE_UPDATED, {"delta": {"valence": "lots"}, "current": {}}, ["delta"]),
    (EventKind.DAEMON_TICK, {"timestamp": "noon"}, ["timestamp"]),
    (EventKind.ERROR, {"traceback": "..."}, ["error"]),
    (EventKind.MEMORY_RETRIEVED, {"episodes": [], "user_facts": []}, ["open_threads"]),
    (EventKind.PROACTIVE_NUDGE, {"reason": "r", "suggestion": "s", "context": []}, ["context"]),
]


@pytest.mark.parametrize(
    ("kind", "payload", "names"),
    BAD_PAYLOADS,
    ids=[f"{k.value}-{i}" for i, (k, _, _) in enumerate(BAD_PAYLOADS)],
)
def test_invalid_payload_rejected_naming_the_field(
    kind: EventKind, payload: dict[str, Any], names: list[str]
) -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        event(kind, payload)
    message = str(info.value)
    assert kind.value in message
    for name in names:
        assert name in message


def test_invalid_payload_rejected_from_json_too() -> None:
    good = event(EventKind.MODEL_CALL_COMPLETED, GOOD_MODEL_CALL)
    raw = good.model_dump_json().replace('"prompt_tokens":1', '"prompt_tokens":-1')
    with pytest.raises(pydantic.ValidationError, match="prompt_tokens"):
        EngineEvent.model_validate_json(raw)


def test_seed_payload_examples_accepted() -> None:
    event(EventKind.TURN_STARTED, {"user_input": "hello", "turn_id": 1})
    event(EventKind.SENSORS_FAST_UPDATED, {"sensors": dict.fromkeys(SENSOR_NAMES, 0.5)})
    event(EventKind.SENSORS_FAST_UPDATED, {"sensors": {}})
    event(EventKind.MODEL_CALL_COMPLETED, {**GOOD_MODEL_CALL, "reasoning_tokens": None})
    event(EventKind.CRITICS_UPDATED, {"results": [{"critic": "c", "passed": False, "reason": "r"}]})
    event(EventKind.SAFETY_INTERRUPT, {"reason": "risk", "sensor": "safety_risk", "value": 0.9})


def test_payload_extra_keys_allowed() -> None:
    payload = {"user_input": "hi", "turn_id": 1, "locale": "fr", "nested": {"a": [1, 2]}}
    ev = event(EventKind.TURN_STARTED, payload)
    assert ev.payload == payload  # kept verbatim, not coerced or stripped
    ev = event(EventKind.MODEL_CALL_COMPLETED, {**GOOD_MODEL_CALL, "cached": True})
    assert ev.payload["cached"] is True


@pytest.mark.parametrize("kind", [k for k in EventKind if k not in PAYLOAD_MODELS])
def test_kinds_without_payload_model_take_any_dict(kind: EventKind) -> None:
    assert event(kind, {}).payload == {}
    assert event(kind, {"anything": [1, "two", None]}).payload == {"anything": [1, "two", None]}


def test_envelope_extra_field_rejected() -> None:
    with pytest.raises(pydantic.ValidationError, match="extra"):
        event(EventKind.SESSION_STARTED, {}, user_input="misplaced")


@settings(max_examples=50, deadline=None)
@given(ev=S.engine_events())
def test_generated_events_validate_against_their_payload_model(ev: EngineEvent) -> None:
    model = PAYLOAD_MODELS.get(ev.kind)
    if model is not None:
        model.model_validate(ev.payload)


# ── seed 000: TestAgentOutput ────────────────────────────────────────────────


class TestAgentOutput:
    def test_quiet_output(self) -> None:
        output = AgentOutput.quiet("emotion.stress")
        assert output.agent_id == "emotion.stress"
        assert output.observation == "Quiet"
        assert output.salience == 0.0
        assert output.urgency == 0
        assert output.confidence == 0
        assert output.claims == []
        assert output.memory_candidates is None
        assert output.stance_delta is None

    def test_output_with_claims(self) -> None:
        claim = Claim(
            id="claim-1",
            text="User seems stressed",
            type=ClaimType.OBSERVATION,
            source_agent="emotion.stress",
            urgency=2,
            confidence=2,
        )
        output = AgentOutput(
            agent_id="emotion.stress",
            observation="High stress detected",
            salience=0.67,
            urgency=2,
            confidence=2,
            claims=[claim],
        )
        assert len(output.claims) == 1
        assert output.claims[0].type == ClaimType.OBSERVATION
        assert claim.supports == [] and claim.opposes == []

    def test_memory_candidates_parsed_from_dicts(self) -> None:
        output = AgentOutput(
            agent_id="memory.keeper",
            observation="o",
            salience=0.1,
            urgency=0,
            confidence=1,
            memory_candidates=[
                {
                    "type": "user_fact",
                    "content": "likes tea",
                    "importance": 0.4,
                    "source_agent": "m.k",
                }
            ],
        )
        assert output.memory_candidates is not None
        assert output.memory_candidates[0].type == "user_fact"


# ── seed 000: TestStanceVector ───────────────────────────────────────────────


class TestStanceVector:
    def test_defaults(self) -> None:
        stance = StanceVector()
        assert stance.valence == 0.0
        assert stance.arousal == 0.3
        assert stance.control == 0.5
        assert stance.certainty == 0.5
        assert stance.safety == 0.7
        assert stance.closeness == 0.3
        assert stance.curiosity == 0.5
        assert stance.strain == 0.0
        assert stance.turn_id == 0
        assert stance.notes == []
        assert stance.to_dict() == {
            "valence": 0.0, "arousal": 0.3, "control": 0.5, "certainty": 0.5,
            "safety": 0.7, "closeness": 0.3, "curiosity": 0.5, "strain": 0.0,
        }  # fmt: skip

    def test_derived_properties(self) -> None:
        stance = StanceVector(certainty=0.8, control=0.6)
        assert stance.readiness_to_speak == 0.7

    @pytest.mark.parametrize(
        ("kwargs", "expected"),
        [
            ({}, 0.15),  # (0.5 - 0.5 + 0.3 + 0) / 2
            ({"certainty": 1.0, "safety": 1.0}, 0.0),  # max(0, -0.5) / 2
            ({"certainty": 0.2, "safety": 0.4, "strain": 0.5}, 0.7),  # (0.3 + 0.6 + 0.5) / 2
            ({"certainty": 0.0, "safety": 0.0, "strain": 1.0}, 1.25),  # the seed's maximum
        ],
    )
    def test_advice_suppression(self, kwargs: dict[str, float], expected: float) -> None:
        assert StanceVector(**kwargs).advice_suppression == pytest.approx(expected)

    @pytest.mark.parametrize(
        ("kwargs", "expected"),
        [
            ({}, 0.15),  # (0.3 + 0) / 2
            ({"closeness": 0.8, "valence": 0.4}, 0.6),
            ({"closeness": 0.2, "valence": -0.9}, 0.1),  # negative valence does not chill
            ({"closeness": 1.0, "valence": 1.0}, 1.0),
        ],
    )
    def test_warmth_level(self, kwargs: dict[str, float], expected: float) -> None:
        assert StanceVector(**kwargs).warmth_level == pytest.approx(expected)

    @settings(max_examples=50, deadline=None)
    @given(stance=S.stance_vectors)
    def test_derived_ranges(self, stance: StanceVector) -> None:
        assert 0.0 <= stance.readiness_to_speak <= 1.0
        assert 0.0 <= stance.warmth_level <= 1.0
        assert 0.0 <= stance.advice_suppression <= 1.25
        assert list(stance.to_dict()) == list(STANCE_DIMENSIONS)


# ── seed 000: TestGlobalModulators ───────────────────────────────────────────


class TestGlobalModulators:
    def test_decay(self) -> None:
        mods = GlobalModulators(arousal=0.8, fatigue=0.5)
        changed = mods.decay(factor=0.9)
        assert changed
        assert mods.arousal < 0.8  # toward 0.3
        assert mods.fatigue < 0.5  # toward 0.0
        assert mods.arousal == pytest.approx(0.3 + 0.5 * 0.9)
        assert mods.fatigue == pytest.approx(0.45)

    def test_decay_from_below_baseline_rises(self) -> None:
        mods = GlobalModulators(arousal=0.0)
        assert mods.decay(factor=0.5)
        assert mods.arousal == pytest.approx(0.15)

    def test_decay_at_baseline_is_a_no_op(self) -> None:
        mods = GlobalModulators()
        assert mods.decay() is False
        assert mods.to_dict() == {
            "arousal": 0.3, "fatigue": 0.0, "time_pressure": 0.0, "social_risk": 0.0
        }  # fmt: skip

    def test_decay_updates_last_update_in_utc(self) -> None:
        old = datetime(2020, 1, 1, tzinfo=UTC)
        mods = GlobalModulators(fatigue=0.9, last_update=old)
        mods.decay()
        assert mods.last_update > old
        assert mods.last_update.utcoffset() == timedelta(0)

    def test_repeated_decay_converges(self) -> None:
        mods = GlobalModulators(arousal=1.0, fatigue=1.0, time_pressure=1.0, social_risk=1.0)
        steps = 0
        while mods.decay(factor=0.9):
            steps += 1
            assert steps < 200, "decay never settles"
        assert steps > 10
        assert mods.arousal == pytest.approx(0.3, abs=0.1)
        for name in ("fatigue", "time_pressure", "social_risk"):
            assert getattr(mods, name) == pytest.approx(0.0, abs=0.1)
        assert mods.decay(factor=0.9) is False  # stays settled

    @settings(max_examples=50, deadline=None)
    @given(mods=S.global_modulators, factor=S.unit, baseline=S.unit)
    def test_decay_stays_in_range_and_moves_toward_target(
        self, mods: GlobalModulators, factor: float, baseline: float
    ) -> None:
        before = mods.to_dict()
        mods.decay(factor=factor, baseline=baseline)  # must never raise for sane arguments
        for name, value in mods.to_dict().items():
            target = baseline if name == "arousal" else 0.0
            assert 0.0 <= value <= 1.0
            assert abs(value - target) <= abs(before[name] - target) + 1e-12


# ── seed 000: AgentManifest ──────────────────────────────────────────────────


class TestAgentManifest:
    def manifest(self, agent_id: str) -> AgentManifest:
        return AgentManifest(
            id=agent_id,
            display_name="Stress",
            inputs=["user_message"],
            outputs=["observation", "claims"],
            prompt_template="stress.txt",
        )

    def test_ids(self) -> None:
        m = self.manifest("emotion.stress")
        assert m.agency_id == "emotion"
        assert m.agent_name == "stress"

    def test_defaults(self) -> None:
        m = self.manifest("emotion.stress")
        assert (m.cost_estimate, m.cooldown, m.version, m.description) == (500, 30, 1, "")
        assert m.priority.value == "normal"
        assert m.safety_profile.value == "read_only"

    def test_id_without_dot(self) -> None:
        m = self.manifest("censor")
        assert m.agency_id == "censor"
        assert m.agent_name == "censor"

    def test_nested_id(self) -> None:
        m = self.manifest("a.b.c")
        assert m.agency_id == "a"
        assert m.agent_name == "c"


# ── council ──────────────────────────────────────────────────────────────────


def test_council_decision_defaults() -> None:
    decision = CouncilDecision(speak=False)
    assert decision.urgency == "medium"
    assert decision.speech_act == SpeechAct(intent="observe")
    assert decision.speech_act.tone == "warm"
    assert decision.final_consensus == 0.0
    # the default speech act is not shared between decisions
    other = CouncilDecision(speak=True)
    decision.speech_act.key_points.append("x")
    assert other.speech_act.key_points == []


# ── non-finite floats are refused (they would dump to JSON null and not load back) ──


@pytest.mark.parametrize(
    "make",
    [
        lambda: event(EventKind.SESSION_STARTED, {}, ts_monotonic=float("nan")),
        lambda: event(EventKind.DAEMON_TICK, {"timestamp": float("inf")}),
        lambda: AgentOutput(
            agent_id="a.b",
            observation="o",
            salience=0.0,
            urgency=0,
            confidence=0,
            stance_delta={"valence": float("nan")},
        ),
    ],
    ids=["ts_monotonic-nan", "daemon_tick-inf", "stance_delta-nan"],
)
def test_non_finite_floats_are_refused(make: Any) -> None:
    with pytest.raises(pydantic.ValidationError):
        make()
