"""Every declared constraint of the contracts is enforced (and its boundary accepted)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import annotated_types
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.contracts import (
    STANCE_DIMENSIONS,
    AgentManifest,
    AgentOutput,
    Claim,
    CouncilDecision,
    CriticResult,
    EngineEvent,
    EpisodicEvent,
    EventKind,
    GlobalModulators,
    Goal,
    MemoryCandidate,
    SensorOutput,
    SpeechAct,
    StanceVector,
    UserFact,
    VoiceResult,
    WorkspaceState,
)

# The smallest valid keyword arguments for each model; each case overrides one field.
MINIMAL: dict[type[pydantic.BaseModel], dict[str, Any]] = {
    EngineEvent: {
        "session_id": "s",
        "turn_id": 0,
        "seq": 0,
        "ts_monotonic": 0.0,
        "kind": EventKind.SESSION_STARTED,
    },
    Claim: {
        "id": "c1",
        "text": "t",
        "type": "observation",
        "source_agent": "emotion.stress",
        "urgency": 0,
        "confidence": 0,
    },
    AgentOutput: {
        "agent_id": "emotion.stress",
        "observation": "o",
        "salience": 0.0,
        "urgency": 0,
        "confidence": 0,
    },
    AgentManifest: {
        "id": "emotion.stress",
        "display_name": "Stress",
        "inputs": [],
        "outputs": [],
        "prompt_template": "stress.txt",
    },
    SensorOutput: {"sensor": "vulnerability", "probability": 0.5},
    StanceVector: {},
    GlobalModulators: {},
    Goal: {"id": "g1", "text": "t"},
    WorkspaceState: {},
    SpeechAct: {"intent": "observe"},
    CouncilDecision: {"speak": True},
    VoiceResult: {"text": "hi"},
    CriticResult: {"critic": "c", "passed": True},
    MemoryCandidate: {
        "type": "episodic",
        "content": "c",
        "importance": 0.5,
        "source_agent": "a.b",
    },
    EpisodicEvent: {"id": "e1", "summary": "s"},
    UserFact: {"id": "u1", "fact": "f", "category": "other", "confidence": 0.5, "source": "t1"},
}


def build(model: type[pydantic.BaseModel], **overrides: Any) -> pydantic.BaseModel:
    return model(**{**MINIMAL[model], **overrides})


def assert_rejected(model: type[pydantic.BaseModel], field: str, value: Any) -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        build(model, **{field: value})
    locs = [err["loc"] for err in info.value.errors()]
    assert any(loc and loc[0] == field for loc in locs), locs


def test_minimal_kwargs_are_valid() -> None:
    for model in MINIMAL:
        build(model)


# ── numeric bounds ───────────────────────────────────────────────────────────

UNIT_FIELDS: list[tuple[type[pydantic.BaseModel], str]] = [
    (AgentOutput, "salience"),
    (SensorOutput, "probability"),
    *((StanceVector, dim) for dim in STANCE_DIMENSIONS if dim != "valence"),
    (GlobalModulators, "arousal"),
    (GlobalModulators, "fatigue"),
    (GlobalModulators, "time_pressure"),
    (GlobalModulators, "social_risk"),
    (CouncilDecision, "final_consensus"),
    (MemoryCandidate, "importance"),
    (EpisodicEvent, "importance"),
    (UserFact, "confidence"),
    (WorkspaceState, "consensus_level"),
]
LEVEL_FIELDS: list[tuple[type[pydantic.BaseModel], str]] = [  # int in [0, 3]
    (Claim, "urgency"),
    (Claim, "confidence"),
    (AgentOutput, "urgency"),
    (AgentOutput, "confidence"),
    (Goal, "priority"),
]
# (model, field, accepted values, rejected values)
BOUND_CASES: list[tuple[type[pydantic.BaseModel], str, list[Any], list[Any]]] = [
    *((m, f, [0.0, 0.5, 1.0], [-0.01, 1.01, -1.0, 2.0]) for m, f in UNIT_FIELDS),
    *((m, f, [0, 1, 3], [-1, 4]) for m, f in LEVEL_FIELDS),
    (StanceVector, "valence", [-1.0, 0.0, 1.0], [-1.01, 1.01]),
    (EngineEvent, "turn_id", [0, 1, 10**9], [-1]),
    (EngineEvent, "seq", [0, 1, 10**9], [-1]),
    (EngineEvent, "schema_version", [1, 2], [0, -1]),
]
_ids = [f"{m.__name__}.{f}" for m, f, _, _ in BOUND_CASES]


@pytest.mark.parametrize(("model", "field", "ok", "bad"), BOUND_CASES, ids=_ids)
def test_numeric_bounds(
    model: type[pydantic.BaseModel], field: str, ok: list[Any], bad: list[Any]
) -> None:
    for value in ok:
        assert getattr(build(model, **{field: value}), field) == value
    for value in bad:
        assert_rejected(model, field, value)


@pytest.mark.parametrize(("model", "field", "ok", "bad"), BOUND_CASES, ids=_ids)
def test_numeric_bounds_on_assignment(
    model: type[pydantic.BaseModel], field: str, ok: list[Any], bad: list[Any]
) -> None:
    obj = build(model)
    before = getattr(obj, field)
    for value in bad:
        with pytest.raises(pydantic.ValidationError):
            setattr(obj, field, value)  # frozen (EngineEvent) or out of range: refused
        assert getattr(obj, field) == before


# ── lengths ──────────────────────────────────────────────────────────────────

# (model, field, max length, filler of one unit)
LENGTH_CASES: list[tuple[type[pydantic.BaseModel], str, int, Any]] = [
    (Claim, "text", 200, "x"),
    (AgentOutput, "observation", 300, "x"),
    (AgentOutput, "label", 40, "x"),
    (AgentOutput, "span", 120, "x"),
    (SensorOutput, "notes", 100, "x"),
    (EpisodicEvent, "summary", 500, "x"),
    (UserFact, "fact", 300, "x"),
    (StanceVector, "notes", 6, ["note"]),
]


@pytest.mark.parametrize(
    ("model", "field", "limit", "unit"),
    LENGTH_CASES,
    ids=[f"{m.__name__}.{f}" for m, f, _, _ in LENGTH_CASES],
)
def test_max_length(model: type[pydantic.BaseModel], field: str, limit: int, unit: Any) -> None:
    assert len(getattr(build(model, **{field: unit * limit}), field)) == limit
    assert_rejected(model, field, unit * (limit + 1))


def test_multibyte_text_counts_characters() -> None:
    assert build(Claim, text="é" * 200)
    assert_rejected(Claim, "text", "é" * 201)


def test_empty_session_id_rejected() -> None:
    assert_rejected(EngineEvent, "session_id", "")


def test_every_declared_constraint_is_covered() -> None:
    """Guard: a new ge/le/min_length/max_length on any model must get a case above."""
    covered = {(m, f) for m, f, _, _ in BOUND_CASES} | {(m, f) for m, f, _, _ in LENGTH_CASES}
    covered.add((EngineEvent, "session_id"))
    declared = set()
    kinds = (
        annotated_types.Ge,
        annotated_types.Le,
        annotated_types.Gt,
        annotated_types.Lt,
        annotated_types.MinLen,
        annotated_types.MaxLen,
    )
    for model in MINIMAL:
        for name, info in model.model_fields.items():
            if any(isinstance(meta, kinds) for meta in info.metadata):
                declared.add((model, name))
    missing = sorted(f"{m.__name__}.{f}" for m, f in declared - covered)
    assert not missing, missing


# ── literals and enums ───────────────────────────────────────────────────────

CHOICE_CASES: list[tuple[type[pydantic.BaseModel], str, list[str], list[Any]]] = [
    (CouncilDecision, "urgency", ["low", "medium", "high", "critical"], ["urgent", "LOW", ""]),
    (CriticResult, "severity", ["info", "warning", "error", "critical"], ["fatal", "Info"]),
    (
        MemoryCandidate,
        "type",
        ["episodic", "user_fact", "goal", "session_note"],
        ["semantic", "fact"],
    ),
    (
        UserFact,
        "category",
        [
            "preference",
            "boundary",
            "communication_style",
            "relationship",
            "background",
            "goal",
            "trigger",
            "other",
        ],
        ["hobby", "Other"],
    ),
    (Claim, "type", ["observation", "recommendation", "concern", "question"], ["opinion"]),
    (EngineEvent, "kind", [k.value for k in EventKind], ["not_a_kind", "TURN_STARTED"]),
    (AgentManifest, "priority", ["always_on", "monitor", "normal"], ["high", "urgent"]),
    (AgentManifest, "safety_profile", ["read_only", "can_suggest", "can_act"], ["admin"]),
]


@pytest.mark.parametrize(
    ("model", "field", "ok", "bad"),
    CHOICE_CASES,
    ids=[f"{m.__name__}.{f}" for m, f, _, _ in CHOICE_CASES],
)
def test_literals_and_enums(
    model: type[pydantic.BaseModel], field: str, ok: list[str], bad: list[Any]
) -> None:
    for value in ok:
        if model is EngineEvent:
            # kinds with a payload model need a payload; only check the enum parses
            assert EventKind(value).value == value
            continue
        got = getattr(build(model, **{field: value}), field)
        assert got == value  # str enums compare equal to their value
    for value in bad:
        assert_rejected(model, field, value)


def test_enum_fields_hold_enum_members() -> None:
    from rilai_desktop.contracts import AgentPriority, AgentSafetyProfile, ClaimType

    assert Claim(**{**MINIMAL[Claim], "type": "concern"}).type is ClaimType.CONCERN
    manifest = AgentManifest(
        **{**MINIMAL[AgentManifest], "priority": "monitor", "safety_profile": "can_act"}
    )
    assert manifest.priority is AgentPriority.MONITOR
    assert manifest.safety_profile is AgentSafetyProfile.CAN_ACT
    ev = EngineEvent(**{**MINIMAL[EngineEvent], "kind": "session_ended"})
    assert ev.kind is EventKind.SESSION_ENDED


# ── extra fields ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("model", list(MINIMAL), ids=lambda m: m.__name__)
def test_unknown_fields_rejected(model: type[pydantic.BaseModel]) -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        build(model, bogus_field=1)
    assert info.value.errors()[0]["type"] == "extra_forbidden"
    with pytest.raises(pydantic.ValidationError):
        model.model_validate_json(build(model).model_dump_json()[:-1] + ',"bogus_field":1}')


# ── datetimes ────────────────────────────────────────────────────────────────

AWARE_FIELDS = [
    (EngineEvent, "ts_wall"),
    (GlobalModulators, "last_update"),
    (Goal, "created_at"),
    (EpisodicEvent, "timestamp"),
    (UserFact, "first_observed"),
    (UserFact, "last_confirmed"),
]
NAIVE = datetime(2024, 5, 1, 12, 0, 0)


@pytest.mark.parametrize(
    ("model", "field"), AWARE_FIELDS, ids=[f"{m.__name__}.{f}" for m, f in AWARE_FIELDS]
)
def test_naive_datetimes_rejected(model: type[pydantic.BaseModel], field: str) -> None:
    assert_rejected(model, field, NAIVE)
    assert_rejected(model, field, "2024-05-01T12:00:00")  # naive ISO string too
    aware = NAIVE.replace(tzinfo=UTC)
    assert getattr(build(model, **{field: aware}), field) == aware
    plus_two = NAIVE.replace(tzinfo=timezone(timedelta(hours=2)))
    assert getattr(build(model, **{field: plus_two}), field) == plus_two
    # the default (where there is one) is aware UTC
    default = getattr(build(model), field)
    assert default.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("model", "field"),
    [(m, f) for m, f in AWARE_FIELDS if m is not EngineEvent],
    ids=[f"{m.__name__}.{f}" for m, f in AWARE_FIELDS if m is not EngineEvent],
)
def test_naive_datetime_assignment_rejected(model: type[pydantic.BaseModel], field: str) -> None:
    obj = build(model)
    with pytest.raises(pydantic.ValidationError):
        setattr(obj, field, NAIVE)


# ── validate_assignment ──────────────────────────────────────────────────────


@pytest.mark.parametrize("dim", STANCE_DIMENSIONS)
def test_stance_assignment_validated(dim: str) -> None:
    stance = StanceVector()
    before = getattr(stance, dim)
    low = -1.01 if dim == "valence" else -0.01
    for bad in (low, 1.01, float("nan"), float("inf"), "high"):
        with pytest.raises(pydantic.ValidationError):
            setattr(stance, dim, bad)
        assert getattr(stance, dim) == before
    setattr(stance, dim, 1.0)
    assert getattr(stance, dim) == 1.0


def test_stance_notes_assignment_validated() -> None:
    stance = StanceVector()
    with pytest.raises(pydantic.ValidationError):
        stance.notes = ["n"] * 7
    stance.notes = ["n"] * 6
    assert len(stance.notes) == 6


def test_unknown_attribute_assignment_rejected() -> None:
    stance = StanceVector()
    with pytest.raises(ValueError):
        stance.mood = 0.5  # type: ignore[attr-defined]


def test_nested_model_validated() -> None:
    with pytest.raises(pydantic.ValidationError):
        WorkspaceState(stance={"valence": 2.0})
    with pytest.raises(pydantic.ValidationError):
        AgentOutput(**MINIMAL[AgentOutput], claims=[{**MINIMAL[Claim], "urgency": 9}])
    with pytest.raises(pydantic.ValidationError):
        AgentOutput(
            **MINIMAL[AgentOutput],
            memory_candidates=[{**MINIMAL[MemoryCandidate], "importance": 1.5}],
        )


def test_fractional_int_rejected() -> None:
    assert_rejected(Claim, "urgency", 1.5)
    assert_rejected(Goal, "priority", "2.5")


# ── property: out-of-range stance values are always refused ──────────────────

_outside_unit = st.floats(max_value=0.0, exclude_max=True) | st.floats(
    min_value=1.0, exclude_min=True
)
_outside_signed = st.floats(max_value=-1.0, exclude_max=True) | st.floats(
    min_value=1.0, exclude_min=True
)


@settings(max_examples=50, deadline=None)
@given(dim=st.sampled_from(STANCE_DIMENSIONS), data=st.data())
def test_out_of_range_stance_always_rejected(dim: str, data: st.DataObject) -> None:
    value = data.draw(_outside_signed if dim == "valence" else _outside_unit, label="value")
    with pytest.raises(pydantic.ValidationError):
        StanceVector(**{dim: value})
    stance = StanceVector()
    with pytest.raises(pydantic.ValidationError):
        setattr(stance, dim, value)


@settings(max_examples=50, deadline=None)
@given(dim=st.sampled_from(STANCE_DIMENSIONS), data=st.data())
def test_in_range_stance_always_accepted(dim: str, data: st.DataObject) -> None:
    lo = -1.0 if dim == "valence" else 0.0
    value = data.draw(st.floats(min_value=lo, max_value=1.0), label="value")
    assert getattr(StanceVector(**{dim: value}), dim) == value
