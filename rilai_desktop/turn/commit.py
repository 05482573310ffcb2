"""Stage 8: what a turn keeps — an episode when it mattered, facts, goals, candidates.

Importance of a turn (documented in docs/turn.md), each term in [0, 1]:

    I = 1 − (1 − 0.6·e)(1 − 0.5·c)(1 − 0.4·m)(1 − 0.3·n)

- e = max(vulnerability, safety_risk, rupture, relational_bid): emotional weight;
- c = the strongest claim's urgency·confidence / 9: how much the council had to say;
- m = the highest importance among the agents' memory candidates (0 when none);
- n = min(1, words / 60): a longer disclosure carries more.

A noisy-or: any one strong term makes a turn important, weak terms add up without ever
passing 1. An episode is written when I ≥ EPISODE_THRESHOLD (0.45): "I'm scared about
tomorrow's surgery" (e ≈ 0.8) clears it; "hi" does not.

Text flagged as prompt injection is quarantined: the user's words and every agent
candidate (which may quote them) stay out of memory; the turn itself stays in the log.
"""

from __future__ import annotations

from rilai_desktop.contracts import MemoryCandidate
from rilai_desktop.turn.ports import CommitPlan
from rilai_desktop.turn.state import TurnState

EPISODE_THRESHOLD = 0.45
EPISODE_CHARS = 480


def importance(state: TurnState) -> float:
    e = max(
        state.sensor("vulnerability"),
        state.sensor("safety_risk"),
        state.sensor("rupture"),
        state.sensor("relational_bid"),
    )
    c = max((cl.urgency * cl.confidence / 9 for cl in state.claims), default=0.0)
    m = max(
        (cand.importance for out in state.outputs for cand in out.memory_candidates or []),
        default=0.0,
    )
    n = min(1.0, len(state.user_text.split()) / 60)
    value = 1 - (1 - 0.6 * e) * (1 - 0.5 * c) * (1 - 0.4 * m) * (1 - 0.3 * n)
    return round(min(1.0, max(0.0, value)), 4)


def _episode_summary(state: TurnState) -> str:
    said = " ".join(state.user_text.split())
    intent = state.decision.speech_act.intent if state.decision else "observe"
    text = f"They said: {said}"
    if len(text) > EPISODE_CHARS:
        text = text[: EPISODE_CHARS - 1].rstrip() + "…"
    return f"{text} (Rilai: {intent})"


def _emotions(state: TurnState) -> list[str]:
    names = ("vulnerability", "rupture", "relational_bid", "humor_masking", "safety_risk")
    return [n for n in names if state.sensor(n) >= 0.5]


def plan_commit(state: TurnState) -> tuple[CommitPlan, float, bool]:
    """(the plan, the turn's importance, whether the text was quarantined)."""
    quarantined = "prompt_injection" in state.flags
    score = importance(state)
    candidates: list[MemoryCandidate] = []
    if not quarantined:
        for out in state.outputs:
            candidates.extend(out.memory_candidates or [])
        if score >= EPISODE_THRESHOLD and state.user_text.strip():
            candidates.append(
                MemoryCandidate(
                    type="episodic",
                    content=_episode_summary(state),
                    importance=score,
                    source_agent="turn.commit",
                    context={"emotions": _emotions(state), "tags": ["conversation"]},
                )
            )
    plan = CommitPlan(
        session_id=state.session_id,
        turn_id=state.turn_id,
        user_text="" if quarantined else state.user_text,
        reply=state.reply,
        candidates=candidates,
        extract_items=not quarantined and bool(state.user_text.strip()),
    )
    return plan, score, quarantined
