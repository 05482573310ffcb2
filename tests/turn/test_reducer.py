"""The reducer: stance (leaky integration), modulators, claims; and no workspace patch."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from rilai_desktop.contracts import (
    MODULATOR_NAMES,
    AgentOutput,
    Claim,
    ClaimType,
    EventKind,
    GlobalModulators,
    StanceVector,
)
from rilai_desktop.contracts.agent_schema import agent_reply_schema
from rilai_desktop.store import EventLog
from rilai_desktop.turn.agents.agencies import AGENCY_BY_ID, ALL_AGENT_IDS
from rilai_desktop.turn.agents.labels import label_schema
from rilai_desktop.turn.deliberation.reducer import (
    ALPHA,
    MAX_DELTA,
    MODULATOR_MAP,
    Reduction,
    modulator_weights,
    reduce,
)
from tests.turn.conftest import Rig

NOW = 1_700_000_000.0


def output(
    agent: str,
    salience: float = 0.5,
    delta: dict[str, float] | None = None,
    claims: list[Claim] | None = None,
) -> AgentOutput:
    return AgentOutput(
        agent_id=agent,
        observation="noticed something",
        salience=salience,
        urgency=2,
        confidence=2,
        claims=claims or [],
        stance_delta=delta,
    )


def raw_output(agent: str, delta: dict[str, Any]) -> AgentOutput:
    """An output built past validation: what a buggy caller could hand us (NaN, inf)."""
    return AgentOutput.model_construct(
        agent_id=agent,
        observation="x",
        salience=0.5,
        urgency=1,
        confidence=1,
        claims=[],
        stance_delta=delta,
        memory_candidates=None,
        debug_trace=None,
        processing_time_ms=0,
    )


def stance(**values: float) -> StanceVector:
    return StanceVector(last_update_ts=0.0, **values)


def mods(**values: float) -> GlobalModulators:
    return GlobalModulators(last_update=datetime(2020, 1, 1, tzinfo=UTC), **values)


def run(outputs: list[AgentOutput], **kw: Any) -> Any:
    return reduce(
        kw.pop("stance", stance()),
        kw.pop("modulators", mods()),
        outputs,
        turn_id=7,
        now_ts=NOW,
        **kw,
    )


# --- stance ---------------------------------------------------------------------------------


def test_single_delta_moves_a_quarter() -> None:
    result = run([output("emotion.stress", delta={"valence": -0.1})])
    assert result.stance.valence == pytest.approx(-0.025)
    assert result.applied_delta == {"valence": pytest.approx(-0.025)}


def test_each_delta_is_clamped_before_integration() -> None:
    result = run([output("emotion.stress", delta={"arousal": 5.0, "valence": -9.0})])
    assert result.stance.arousal == pytest.approx(0.3 + ALPHA * MAX_DELTA)
    assert result.stance.valence == pytest.approx(-ALPHA * MAX_DELTA)


def test_equals_leaky_integration_toward_the_target() -> None:
    before = stance(strain=0.4)
    deltas = [0.1, 0.15, -0.05]
    outputs = [output(f"emotion.a{i}", delta={"strain": d}) for i, d in enumerate(deltas)]
    result = run(outputs, stance=before)
    target = 0.4 + sum(deltas)
    assert result.stance.strain == pytest.approx((1 - ALPHA) * 0.4 + ALPHA * target)


def test_bounds_per_dimension_and_applied_delta_after_bounds() -> None:
    before = stance(closeness=0.99, valence=-0.99, strain=0.01)
    outputs = [
        output(f"social.a{i}", delta={"closeness": 0.15, "valence": -0.15, "strain": -0.15})
        for i in range(4)
    ]
    result = run(outputs, stance=before)
    assert result.stance.closeness == 1.0
    assert result.stance.valence == -1.0
    assert result.stance.strain == 0.0
    assert result.applied_delta["closeness"] == pytest.approx(0.01)
    assert result.applied_delta["strain"] == pytest.approx(-0.01)


def test_unknown_dimensions_and_non_finite_values_are_ignored() -> None:
    outputs = [
        output("emotion.stress", delta={"mood": 0.1, "happiness": 0.15}),
        raw_output("emotion.wellbeing", {"valence": float("nan"), "arousal": float("inf")}),
        raw_output("emotion.wanting", {"safety": "high", "curiosity": True}),
    ]
    result = run(outputs)
    assert result.stance.to_dict() == stance().to_dict()
    assert result.applied_delta == {}


def test_stance_metadata_set_and_notes_kept() -> None:
    before = StanceVector(last_update_ts=1.0, notes=["keep it short"])
    result = reduce(before, mods(), [], turn_id=42, now_ts=NOW)
    assert result.stance.turn_id == 42
    assert result.stance.last_update_ts == NOW
    assert result.stance.notes == ["keep it short"]


# --- modulators -----------------------------------------------------------------------------


def test_modulator_map_is_well_formed() -> None:
    for key, weights in MODULATOR_MAP.items():
        agency, _, name = key.partition(".")
        assert agency in AGENCY_BY_ID
        assert name == "*" or key in ALL_AGENT_IDS
        for modulator, weight in weights.items():
            assert modulator in MODULATOR_NAMES
            assert -1.0 <= weight <= 1.0 and weight != 0.0


def test_exact_agent_overrides_agency_wildcard() -> None:
    assert modulator_weights("social.empathy") == MODULATOR_MAP["social.*"]
    assert modulator_weights("social.norms") == MODULATOR_MAP["social.norms"]
    assert modulator_weights("reasoning.debugger") == {}
    assert modulator_weights("nonsense") == {}


def test_stress_raises_arousal_and_time_pressure() -> None:
    result = run([output("emotion.stress", salience=0.9)], modulators=mods(arousal=0.3))
    assert result.modulators.arousal == pytest.approx(0.3 + ALPHA * 1.0 * (0.9 - 0.3))
    assert result.modulators.time_pressure == pytest.approx(ALPHA * 0.6 * 0.9)
    assert result.modulators.source_agents == {
        "arousal": "emotion.stress",
        "time_pressure": "emotion.stress",
    }
    assert set(result.modulator_changes) == {"arousal", "time_pressure"}


@pytest.mark.parametrize(
    ("agent", "modulator"),
    [
        ("resource.time", "time_pressure"),
        ("resource.energy", "fatigue"),
        ("emotion.wellbeing", "fatigue"),
        ("social.empathy", "social_risk"),
        ("social.relationships", "social_risk"),
        ("monitoring.trigger_watcher", "social_risk"),
    ],
)
def test_agents_raise_their_modulators(agent: str, modulator: str) -> None:
    result = run([output(agent, salience=0.8)])
    assert result.modulator_changes[modulator] > 0
    assert result.modulators.source_agents[modulator] == agent


def test_negative_weight_calms() -> None:
    result = run([output("emotion.mood_regulator", salience=1.0)], modulators=mods(arousal=0.8))
    assert result.modulators.arousal == pytest.approx(0.8 - ALPHA * 0.5 * 1.0 * 0.8)


def test_quiet_or_unmapped_agents_move_nothing() -> None:
    before = mods(arousal=0.6, social_risk=0.2)
    outputs = [AgentOutput.quiet("emotion.stress"), output("reasoning.debugger", salience=1.0)]
    result = run(outputs, modulators=before)
    assert result.modulators.to_dict() == before.to_dict()
    assert result.modulator_changes == {}
    # a positive weight never lowers a modulator that is above the salience
    result = run([output("emotion.stress", salience=0.1)], modulators=before)
    assert result.modulators.arousal == 0.6


def test_largest_contributor_is_the_source() -> None:
    outputs = [output("social.empathy", salience=0.3), output("social.norms", salience=0.9)]
    result = run(outputs, modulators=mods(social_risk=0.0))
    assert result.modulators.source_agents["social_risk"] == "social.norms"


def test_previous_sources_are_kept_for_untouched_modulators() -> None:
    before = GlobalModulators(source_agents={"fatigue": "resource.energy"})
    result = run([output("resource.time", salience=0.9)], modulators=before)
    assert result.modulators.source_agents == {
        "fatigue": "resource.energy",
        "time_pressure": "resource.time",
    }


def test_modulators_stay_in_range_at_the_extremes() -> None:
    outputs = [output(agent, salience=1.0) for agent in MODULATOR_MAP if "*" not in agent]
    result = run(outputs, modulators=mods(arousal=1.0, fatigue=1.0, time_pressure=0.0))
    for value in result.modulators.to_dict().values():
        assert 0.0 <= value <= 1.0


def test_last_update_from_now_ts_and_bad_timestamps_keep_the_old() -> None:
    result = run([])
    assert result.modulators.last_update == datetime.fromtimestamp(NOW, UTC)
    for bad in (float("nan"), float("inf"), 1e300):
        out = reduce(stance(), mods(), [], turn_id=1, now_ts=bad)
        assert out.modulators.last_update == datetime(2020, 1, 1, tzinfo=UTC)


# --- no workspace patch ---------------------------------------------------------------------
# Agents answer with a label and code composes their claims (docs/agents.md): nothing ever
# proposed a patch, so the seed's workspace_patch left AgentOutput and the reducer.


def test_an_agent_output_cannot_carry_a_workspace_patch() -> None:
    with pytest.raises(ValidationError, match="workspace_patch"):
        AgentOutput(
            agent_id="inhibition.censor",
            observation="x",
            salience=0.5,
            urgency=1,
            confidence=1,
            workspace_patch={"constraints": ["no advice"]},  # type: ignore[call-arg]
        )


def test_the_reduction_holds_stance_modulators_and_claims_only() -> None:
    assert {f.name for f in dataclasses.fields(Reduction)} == {
        "stance",
        "modulators",
        "claims",
        "applied_delta",
        "modulator_changes",
    }


def test_no_agent_answer_offers_a_patch() -> None:
    assert set(label_schema(["a", "b"])["properties"]) == {"present", "label", "confidence", "span"}
    full = agent_reply_schema(["claims", "stance_delta", "memory_candidates"])
    assert set(full["properties"]) == {
        "observation",
        "urgency",
        "confidence",
        "claims",
        "stance",
        "memory",
    }


def test_a_turn_emits_no_workspace_patched(rig: Rig) -> None:
    result = rig.runner.run_turn("Please, no advice. I just need to vent about my boss.")
    assert result.reply
    assert rig.log.events(kind=EventKind.WORKSPACE_PATCHED) == []
    assert rig.log.events(kind=EventKind.STANCE_UPDATED, turn_id=result.turn_id)


def test_an_older_log_with_workspace_patched_still_reads(tmp_path: Path) -> None:
    with EventLog(tmp_path / "old.db") as log:
        log.append("s", 1, EventKind.WORKSPACE_PATCHED, {"patch": {"constraints": ["x"]}})
        (event,) = log.events(kind=EventKind.WORKSPACE_PATCHED)
    assert event.payload == {"patch": {"constraints": ["x"]}}


# --- claims and determinism -----------------------------------------------------------------


def claim(cid: str, text: str, agent: str, urgency: int = 2) -> Claim:
    return Claim(
        id=cid,
        text=text,
        type=ClaimType.OBSERVATION,
        source_agent=agent,
        urgency=urgency,
        confidence=2,
    )


def test_claims_are_existing_then_outputs_deduped() -> None:
    existing = [claim("old", "User is stressed about work", "emotion.stress")]
    outputs = [
        output("social.empathy", claims=[claim("e1", "User wants to be heard", "social.empathy")]),
        output(
            "emotion.stress",
            claims=[claim("s1", "The user is stressed about work", "emotion.stress")],
        ),
    ]
    result = run(outputs, existing_claims=existing)
    assert [c.id for c in result.claims] == ["old", "e1"]


def test_result_does_not_depend_on_arrival_order() -> None:
    outputs = [
        output("emotion.stress", 0.9, {"valence": -0.15, "strain": 0.1}),
        output(
            "social.empathy",
            0.7,
            {"closeness": 0.1},
            [claim("c1", "User wants to be heard", "social.empathy")],
        ),
        output(
            "resource.time",
            0.6,
            {"strain": 0.15},
            [claim("c2", "Deadline is tomorrow", "resource.time")],
        ),
        output("emotion.stress", 0.2, {"valence": 0.05}),
    ]
    first = run(outputs)
    assert run(list(reversed(outputs))) == first
    assert run(outputs[1:] + outputs[:1]) == first
    assert [c.id for c in first.claims] == ["c2", "c1"]  # canonical: by agent id
