"""Hypothesis strategies that build VALID instances of every contract model.

Every strategy here must only ever produce values the models accept: the round-trip tests
build instances directly from them, so an invalid draw shows up as an error there.
Text is kept short, floats finite, datetimes timezone-aware (UTC).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel

from rilai_desktop.contracts import (
    PAYLOAD_MODELS,
    SENSOR_NAMES,
    STANCE_DIMENSIONS,
    AgentManifest,
    AgentOutput,
    AgentPriority,
    AgentSafetyProfile,
    Claim,
    ClaimType,
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
from rilai_desktop.contracts.agent import KNOWLEDGE_BASES

# ── primitives ───────────────────────────────────────────────────────────────

SMALL = 20


def text(max_size: int = SMALL, min_size: int = 0) -> st.SearchStrategy[str]:
    return st.text(min_size=min_size, max_size=max_size)


nonempty_text = text(min_size=1)
ids = text(min_size=1, max_size=12)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
signed_unit = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
level = st.integers(min_value=0, max_value=3)
nonneg_int = st.integers(min_value=0, max_value=10**9)
nonneg_floats = st.floats(min_value=0.0, max_value=1e9, allow_nan=False)
any_int = st.integers(min_value=-(10**9), max_value=10**9)
aware_datetimes = st.datetimes(timezones=st.just(UTC))
short_text_list = st.lists(text(), max_size=3)

# Anything that survives JSON unchanged (no tuples, no NaN/inf, ints within 2**53).
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | finite_floats
    | text()
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
json_dicts: st.SearchStrategy[dict[str, Any]] = st.dictionaries(
    text(max_size=8), json_values, max_size=4
)
float_dicts = st.dictionaries(text(max_size=12), finite_floats, max_size=4)


# ── memory ───────────────────────────────────────────────────────────────────

memory_candidates = st.builds(
    MemoryCandidate,
    type=st.sampled_from(["episodic", "user_fact", "goal", "session_note"]),
    content=text(),
    importance=unit,
    source_agent=text(),
    context=st.none() | json_dicts,
)

episodic_events = st.builds(
    EpisodicEvent,
    id=ids,
    timestamp=aware_datetimes,
    summary=text(),
    emotions=short_text_list,
    participants=short_text_list,
    tags=short_text_list,
    importance=unit,
    turn_id=any_int,
    session_id=text(),
)

USER_FACT_CATEGORIES = [
    "preference",
    "boundary",
    "communication_style",
    "relationship",
    "background",
    "goal",
    "trigger",
    "other",
]

user_facts = st.builds(
    UserFact,
    id=ids,
    fact=text(),
    category=st.sampled_from(USER_FACT_CATEGORIES),
    confidence=unit,
    source=text(),
    first_observed=aware_datetimes,
    last_confirmed=aware_datetimes,
    evidence_count=any_int,
)


# ── agent ────────────────────────────────────────────────────────────────────

agent_ids = st.builds(
    lambda agency, name: f"{agency}.{name}",
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    st.from_regex(r"[a-z_]{1,10}", fullmatch=True),
)

claims = st.builds(
    Claim,
    id=ids,
    text=text(),
    type=st.sampled_from(ClaimType),
    source_agent=agent_ids,
    urgency=level,
    confidence=level,
    supports=st.lists(ids, max_size=3),
    opposes=st.lists(ids, max_size=3),
)

agent_outputs = st.builds(
    AgentOutput,
    agent_id=agent_ids,
    observation=text(),
    salience=unit,
    urgency=level,
    confidence=level,
    claims=st.lists(claims, max_size=3),
    stance_delta=st.none() | st.dictionaries(st.sampled_from(STANCE_DIMENSIONS), finite_floats),
    memory_candidates=st.none() | st.lists(memory_candidates, max_size=3),
    debug_trace=st.none() | text(),
    processing_time_ms=nonneg_int,
)

agent_manifests = st.builds(
    AgentManifest,
    id=agent_ids,
    display_name=text(),
    description=text(),
    inputs=short_text_list,
    outputs=short_text_list,
    cost_estimate=nonneg_int,
    cooldown=nonneg_int,
    priority=st.sampled_from(AgentPriority),
    safety_profile=st.sampled_from(AgentSafetyProfile),
    prompt_template=text(),
    version=st.integers(min_value=1, max_value=100),
)


# ── sensor ───────────────────────────────────────────────────────────────────

sensor_outputs = st.builds(
    SensorOutput,
    sensor=st.sampled_from(SENSOR_NAMES),
    probability=unit,
    evidence=short_text_list,
    counterevidence=short_text_list,
    notes=text(),
)


# ── workspace ────────────────────────────────────────────────────────────────

stance_vectors = st.builds(
    StanceVector,
    valence=signed_unit,
    arousal=unit,
    control=unit,
    certainty=unit,
    safety=unit,
    closeness=unit,
    curiosity=unit,
    strain=unit,
    turn_id=any_int,
    last_update_ts=finite_floats,
    notes=st.lists(text(), max_size=6),
)

global_modulators = st.builds(
    GlobalModulators,
    arousal=unit,
    fatigue=unit,
    time_pressure=unit,
    social_risk=unit,
    last_update=aware_datetimes,
    source_agents=st.dictionaries(text(max_size=12), agent_ids, max_size=4),
)

goals = st.builds(
    Goal,
    id=ids,
    text=text(),
    created_at=aware_datetimes,
    deadline=st.none() | finite_floats,
    priority=level,
    status=st.sampled_from(["open", "in_progress", "completed", "abandoned"]),
)

workspace_states = st.builds(
    WorkspaceState,
    user_message=text(),
    conversation_history=st.lists(json_dicts, max_size=3),
    retrieved_episodes=st.lists(json_dicts, max_size=2),
    user_facts=st.lists(json_dicts, max_size=2),
    open_threads=st.lists(goals, max_size=2),
    stance=stance_vectors,
    modulators=global_modulators,
    active_claims=st.lists(json_dicts, max_size=2),
    consensus_level=unit,
    current_goal=st.none() | text(),
    constraints=short_text_list,
    pending_asks=short_text_list,
    current_response=st.none() | text(),
    last_user_message_time=st.none() | finite_floats,
    turn_id=any_int,
)


# ── council ──────────────────────────────────────────────────────────────────

speech_acts = st.builds(
    SpeechAct,
    intent=st.sampled_from(["witness", "guide", "clarify", "protect", "celebrate", "observe"])
    | text(),
    key_points=short_text_list,
    tone=text(),
    do_not=short_text_list,
    asks_user=st.none() | short_text_list,
)

council_decisions = st.builds(
    CouncilDecision,
    speak=st.booleans(),
    urgency=st.sampled_from(["low", "medium", "high", "critical"]),
    speech_act=speech_acts,
    needs_clarification=st.none() | text(),
    thinking=st.none() | text(),
    deliberation_rounds=nonneg_int,
    final_consensus=unit,
)

voice_results = st.builds(
    VoiceResult,
    text=text(),
    processing_time_ms=nonneg_int,
    model_used=text(),
)

critic_results = st.builds(
    CriticResult,
    critic=text(),
    passed=st.booleans(),
    reason=text(),
    severity=st.sampled_from(["info", "warning", "error", "critical"]),
    suggestions=short_text_list,
)


# ── event payloads ───────────────────────────────────────────────────────────


def _payload(
    required: dict[str, st.SearchStrategy[Any]],
    optional: dict[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """A payload dict: the required keys, optional keys maybe, plus maybe an extra key.

    Extra keys are allowed by every payload model; they are prefixed ``x_`` so they never
    collide with a documented key.
    """
    extras = st.dictionaries(
        st.from_regex(r"x_[a-z]{1,6}", fullmatch=True), json_values, max_size=2
    )
    return st.fixed_dictionaries(required, optional=optional or {}).flatmap(
        lambda base: extras.map(lambda extra: {**extra, **base})
    )


claim_dicts = claims.map(lambda c: c.model_dump(mode="json"))
critic_entries = st.fixed_dictionaries(
    {"critic": text(), "passed": st.booleans()}, optional={"reason": text()}
)

PAYLOAD_STRATEGIES: dict[EventKind, st.SearchStrategy[dict[str, Any]]] = {
    EventKind.TURN_STARTED: _payload({"user_input": text()}, {"turn_id": nonneg_int}),
    EventKind.TURN_STAGE_CHANGED: _payload(
        {
            "stage": st.sampled_from(
                [
                    "ingest",
                    "sensing_fast",
                    "context",
                    "agents",
                    "deliberation",
                    "council",
                    "critics",
                    "memory_commit",
                ]
            )
        }
    ),
    EventKind.TURN_COMPLETED: _payload(
        {"total_time_ms": nonneg_int}, {"response": st.none() | text()}
    ),
    EventKind.TURN_ABORTED: _payload({"reason": text(), "last_seq": nonneg_int}),
    EventKind.TURN_RETRACTED: _payload(
        {"turn_id": st.integers(1, 10**9), "reason": st.sampled_from(["regenerate", "edit"])}
    ),
    EventKind.SENSORS_FAST_UPDATED: _payload(
        {"sensors": st.dictionaries(st.sampled_from(SENSOR_NAMES), unit)}
    ),
    EventKind.AGENT_STARTED: _payload({"agent_id": agent_ids}),
    EventKind.AGENT_COMPLETED: _payload(
        {
            "agent_id": agent_ids,
            "observation": text(),
            "salience": unit,
            "urgency": level,
            "confidence": level,
            "claims": st.lists(claim_dicts, max_size=2),
            "processing_time_ms": nonneg_int,
        },
        {"stance_delta": st.none() | float_dicts},
    ),
    EventKind.AGENT_FAILED: _payload({"agent_id": agent_ids, "error": text()}),
    EventKind.WORKSPACE_PATCHED: _payload({"patch": json_dicts}),
    EventKind.STANCE_UPDATED: _payload({"delta": float_dicts, "current": float_dicts}),
    EventKind.DELIB_ROUND_STARTED: _payload({"round": nonneg_int}),
    EventKind.DELIB_ROUND_COMPLETED: _payload(
        {"round": nonneg_int, "consensus": unit, "active_claims": nonneg_int}
    ),
    EventKind.CONSENSUS_UPDATED: _payload(
        {
            "level": unit,
            "by_type": st.dictionaries(st.sampled_from([t.value for t in ClaimType]), unit),
        }
    ),
    EventKind.COUNCIL_DECISION_MADE: _payload(
        {
            "speak": st.booleans(),
            "urgency": st.sampled_from(["low", "medium", "high", "critical"]),
            "intent": text(),
            "key_points": short_text_list,
        },
        {"thinking": st.none() | text()},
    ),
    EventKind.VOICE_RENDERED: _payload({"text": text()}),
    EventKind.CRITICS_UPDATED: _payload({"results": st.lists(critic_entries, max_size=3)}),
    EventKind.SAFETY_INTERRUPT: _payload(
        {"reason": text()},
        {"sensor": st.none() | st.sampled_from(SENSOR_NAMES), "value": st.none() | unit},
    ),
    EventKind.MEMORY_RETRIEVED: _payload(
        {
            "episodes": st.lists(json_dicts, max_size=2),
            "user_facts": st.lists(json_dicts, max_size=2),
            "open_threads": st.lists(json_dicts, max_size=2),
        },
        {
            "items": st.lists(json_dicts, max_size=2),
            "knowledge": st.lists(
                st.fixed_dictionaries(
                    {
                        "kb": st.sampled_from(KNOWLEDGE_BASES),
                        "id": text(),
                        "text": text(),
                        "score": unit,
                    }
                ),
                max_size=2,
            ),
        },
    ),
    EventKind.MEMORY_COMMITTED: _payload({"summary": json_dicts}),
    EventKind.MEMORY_RESOURCE_STORED: _payload(
        {
            "resource_id": ids,
            "resource_type": ids,
            "content_length": st.integers(min_value=1, max_value=10**6),
            "metadata_keys": short_text_list,
        }
    ),
    EventKind.MEMORY_ITEMS_EXTRACTED: _payload(
        {
            "resource_id": ids,
            "item_ids": st.lists(ids, max_size=3),
            "item_count": nonneg_int,
            "categories": short_text_list,
            "extraction_time_ms": nonneg_floats,
        }
    ),
    EventKind.MEMORY_CATEGORY_CREATED: _payload(
        {"category_id": ids, "name": ids, "description": text()}
    ),
    EventKind.MEMORY_CATEGORY_CONSOLIDATED: _payload(
        {
            "category_id": ids,
            "name": ids,
            "item_count": nonneg_int,
            "content_length": nonneg_int,
            "consolidation_time_ms": nonneg_floats,
        }
    ),
    EventKind.MEMORY_RETRIEVAL_PERFORMED: _payload(
        {
            "query_hash": st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
            "mode": st.sampled_from(["rag", "llm", "hybrid"]),
            "result_count": nonneg_int,
            "search_time_ms": nonneg_floats,
            "escalated": st.booleans(),
        }
    ),
    EventKind.MEMORY_RESOURCE_DELETED: _payload(
        {"resource_id": ids, "item_ids": st.lists(ids, max_size=3)}
    ),
    EventKind.MEMORY_ITEM_DELETED: _payload({"item_id": ids}),
    EventKind.MEMORY_ITEM_UPDATED: _payload({"item_id": ids, "change": ids}),
    EventKind.MEMORY_INDEX_REBUILT: _payload(
        {"reason": ids, "item_count": nonneg_int, "rebuild_time_ms": nonneg_floats}
    ),
    EventKind.MEMORY_IMPORTED: _payload(
        {
            "format_version": st.integers(min_value=1, max_value=9),
            "merge": st.booleans(),
            "counts": st.dictionaries(ids, nonneg_int, max_size=4),
        },
        {
            "skipped": st.dictionaries(ids, nonneg_int, max_size=4),
            "pinned": st.lists(
                st.fixed_dictionaries(
                    {"kind": st.sampled_from(["item", "fact", "episode", "goal"]), "entry_id": ids}
                ),
                max_size=3,
            ),
        },
    ),
    EventKind.MEMORY_USED: _payload(
        {
            "entries": st.lists(
                st.fixed_dictionaries(
                    {
                        "kind": st.sampled_from(["item", "fact", "episode", "goal"]),
                        "entry_id": text(),
                        "text": nonempty_text,
                    }
                ),
                max_size=3,
            )
        },
        {
            "knowledge": st.lists(
                st.fixed_dictionaries({"kb": nonempty_text, "id": text(), "text": nonempty_text}),
                max_size=2,
            )
        },
    ),
    EventKind.MEMORY_ENTRY_CHANGED: _payload(
        {
            "kind": st.sampled_from(["item", "fact", "episode", "goal"]),
            "entry_id": ids,
            "change": st.sampled_from(
                ["edited", "deleted", "paused", "resumed", "pinned", "unpinned", "not_relevant"]
            ),
        },
        {"content_hash": st.text("0123456789abcdef", min_size=64, max_size=64)},
    ),
    EventKind.MEMORY_SWITCHED: _payload({"paused": st.booleans()}),
    EventKind.MEMORY_FORGOTTEN: _payload({"counts": st.dictionaries(ids, nonneg_int, max_size=4)}),
    EventKind.MODEL_CALL_COMPLETED: _payload(
        {
            "model": nonempty_text,
            "prompt_tokens": nonneg_int,
            "completion_tokens": nonneg_int,
            "latency_ms": nonneg_int,
        },
        {"reasoning_tokens": st.none() | nonneg_int},
    ),
    EventKind.DAEMON_TICK: _payload({"timestamp": finite_floats}),
    EventKind.PROACTIVE_NUDGE: _payload(
        {"reason": text(), "suggestion": text(), "context": json_dicts},
        {"level": st.integers(min_value=0, max_value=4)},
    ),
    EventKind.NUDGE_SEEN: _payload(
        {
            "client": st.sampled_from(["window", "shell"]),
            "nudges": st.lists(
                st.fixed_dictionaries(
                    {
                        "condition": nonempty_text,
                        "at": aware_datetimes.map(lambda d: d.isoformat()),
                        "level": st.integers(min_value=0, max_value=4),
                    }
                ),
                max_size=3,
            ),
        },
        {"digest_day": st.none() | st.dates().map(lambda d: d.isoformat())},
    ),
    EventKind.MODULATORS_DECAYED: _payload(
        {
            "elapsed_s": st.floats(min_value=0, max_value=1e7, allow_nan=False),
            "modulators": st.dictionaries(
                st.sampled_from(["arousal", "fatigue"]),
                st.fixed_dictionaries({"before": finite_floats, "after": finite_floats}),
                max_size=2,
            ),
            "stance": st.dictionaries(
                st.sampled_from(["strain", "valence"]),
                st.fixed_dictionaries({"after": finite_floats}),
                max_size=2,
            ),
        }
    ),
    EventKind.ERROR: _payload({"error": text()}, {"traceback": st.none() | text()}),
    EventKind.API_REQUEST: _payload(
        {
            "method": st.sampled_from(["GET", "POST", "WS"]),
            "path": st.text(max_size=80),
            "status": st.integers(100, 599),
            "ms": st.floats(0, 1e6, allow_nan=False),
        }
    ),
}


def payloads_for(kind: EventKind) -> st.SearchStrategy[dict[str, Any]]:
    """A valid payload for ``kind``: typed if it has a payload model, any JSON dict if not."""
    if kind in PAYLOAD_MODELS:
        return PAYLOAD_STRATEGIES[kind]
    return json_dicts


def engine_events(kind: EventKind | None = None) -> st.SearchStrategy[EngineEvent]:
    """Valid EngineEvents; of one ``kind`` if given, of any kind otherwise."""
    kinds = st.just(kind) if kind is not None else st.sampled_from(EventKind)
    return kinds.flatmap(
        lambda k: st.builds(
            EngineEvent,
            session_id=ids,
            turn_id=nonneg_int,
            seq=nonneg_int,
            ts_monotonic=finite_floats,
            ts_wall=aware_datetimes,
            kind=st.just(k),
            payload=payloads_for(k),
            schema_version=st.integers(min_value=1, max_value=5),
        )
    )


# Every model and its strategy (the round-trip tests iterate over this).
MODEL_STRATEGIES: dict[type[BaseModel], st.SearchStrategy[Any]] = {
    EngineEvent: engine_events(),
    Claim: claims,
    AgentOutput: agent_outputs,
    AgentManifest: agent_manifests,
    SensorOutput: sensor_outputs,
    StanceVector: stance_vectors,
    GlobalModulators: global_modulators,
    Goal: goals,
    WorkspaceState: workspace_states,
    SpeechAct: speech_acts,
    CouncilDecision: council_decisions,
    VoiceResult: voice_results,
    CriticResult: critic_results,
    MemoryCandidate: memory_candidates,
    EpisodicEvent: episodic_events,
    UserFact: user_facts,
}
