"""The text every agent of a turn reads: one static system part plus the turn's context.

Layout is a performance decision (DESIGN.md: prompt processing dominates on 2 cores).
The system message — the static instructions (``prompts/agents/_system.md``) followed by
this turn's context — is identical for every agent call of the turn, so llama.cpp
evaluates it once per context and reuses its KV cache; only the agent's own instructions
(the user message, 15-35 words) are new per call. The context starts with what is known
before the message arrives (the last exchange, Rilai's state: ``lead_context``), so that
part is evaluated between turns (``warm_messages``) and a turn pays only for the message,
its signals and what memory recalled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rilai_desktop.contracts import StanceVector
from rilai_desktop.contracts.llm import ChatMessage
from rilai_desktop.turn.agents.registry import AgentSpec
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.state import TurnState

MESSAGE_CHARS = 600  # of the user's message an agent sees (the voice sees more)
HISTORY_CHARS = 140
SIGNAL_FLOOR = 0.3  # sensors below this are not mentioned
_DEFAULT_STANCE = {
    "valence": 0.0,
    "arousal": 0.3,
    "control": 0.5,
    "certainty": 0.5,
    "safety": 0.7,
    "closeness": 0.3,
    "curiosity": 0.5,
    "strain": 0.0,
}


def load_system_text(prompts: Prompts) -> str:
    """The agents' shared system message (``agents/_system.md``); raises if it is missing."""
    return prompts.read("agents/_system.md").strip()


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def lead_context(history: Sequence[Mapping[str, Any]], stance: StanceVector) -> str:
    """The part of the context known before the message arrives: the last exchange and
    Rilai's state. It comes first, so it is evaluated between turns (``warm_messages``)."""
    lines: list[str] = []
    if history:
        said = "; ".join(
            f"{'person' if m.get('role') == 'user' else 'Rilai'}: "
            f"{_excerpt(str(m.get('content', '')), HISTORY_CHARS)}"
            for m in history[-2:]
        )
        lines.append(f"Just before: {said}")
    moved = [
        f"{dim} {value:.1f}"
        for dim, value in stance.to_dict().items()
        if abs(value - _DEFAULT_STANCE[dim]) >= 0.15
    ]
    if moved:
        lines.append("Rilai's state: " + ", ".join(moved))
    return "\n".join(lines)


def turn_context(state: TurnState) -> str:
    """The turn's shared context, compact and in time order: the last exchange and Rilai's
    state (known before the message: ``lead_context``), then the message, its strong
    signals and what memory recalled for it."""
    lead = lead_context(state.history, state.stance)
    lines = [lead] if lead else []
    lines.append(f'The person says: "{_excerpt(state.user_text, MESSAGE_CHARS) or "(nothing)"}"')
    signals = sorted(
        ((name, out.probability) for name, out in state.sensors.items()),
        key=lambda kv: (-kv[1], kv[0]),
    )
    strong = [f"{name} {p:.1f}" for name, p in signals if p >= SIGNAL_FLOOR]
    if strong:
        lines.append("Signals: " + ", ".join(strong[:4]))
    facts = [str(f.get("fact", "")) for f in state.recall.user_facts[:3] if f.get("fact")]
    if facts:
        lines.append("Known about them: " + "; ".join(_excerpt(f, 100) for f in facts))
    return "\n".join(lines)


def warm_messages(system_text: str, lead: str) -> list[ChatMessage]:
    """The start every agent prompt of the next turn shares (for ``Prefills.prefill``)."""
    return [ChatMessage("system", _system_content(system_text, lead))]


def _system_content(system_text: str, context: str) -> str:
    return f"{system_text}\n\nContext:\n{context}"


def agent_messages(
    system_text: str, context: str, spec: AgentSpec, *, followup: str = ""
) -> list[ChatMessage]:
    """[system: static + context] [user: the agent's question, its labels (+ a follow-up)]."""
    user = f"Your role: {spec.manifest.display_name}. {spec.prompt}"
    if spec.labels:
        user += " Labels: " + ", ".join(lab.name for lab in spec.labels) + "."
    if followup:
        user += "\n" + followup
    return [
        ChatMessage("system", _system_content(system_text, context)),
        ChatMessage("user", user),
    ]
