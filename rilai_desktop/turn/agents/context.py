"""The text every agent of a turn reads: one static system part plus the turn's context.

Layout is a performance decision (DESIGN.md: prompt processing dominates on 2 cores).
The system message — the static instructions (``prompts/agents/_system.md``) followed by
this turn's context — is identical for every agent call of the turn, so llama.cpp
evaluates it once per context and reuses its KV cache; only the agent's own instructions
(the user message, 15-35 words) are new per call. The context starts with what is known
before the message arrives (the last exchange, Rilai's state: ``lead_context``), so that
part is evaluated between turns (``warm_messages``) and a turn pays only for the message,
its signals and what memory recalled.

Each agent's manifest declares the inputs it reads (``inputs:``; :data:`AGENT_INPUTS` are
the ones a turn provides, and the loader refuses any other). The shared context carries an
input only when there is something to say and at least one agent scheduled this turn
declares it, and then in one short line: the modulators when moved from their defaults,
two open threads, one earlier episode, two documents recall found in the knowledge bases
the manifests ask for (``knowledge``).
``active_claims`` is the exception: the claims so far change while the turn runs, so they
go to the agents that declare them in their own user message (:func:`agent_messages`),
never into the shared part.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from rilai_desktop.contracts import Claim, GlobalModulators, StanceVector
from rilai_desktop.contracts.llm import ChatMessage
from rilai_desktop.turn.agents.registry import AgentSpec
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.state import TurnState

MESSAGE_CHARS = 600  # of the user's message an agent sees (the voice sees more)
HISTORY_CHARS = 140
SIGNAL_FLOOR = 0.3  # sensors below this are not mentioned
MEMORY_LINE_CHARS = 100  # per fact, thread, episode or document in the shared context
MAX_THREADS = 2
MAX_EPISODES = 1
MAX_DOCUMENTS = 2
MAX_CLAIMS = 4  # of the active claims an agent that declares them reads
CLAIM_CHARS = 80
MOVED = 0.15  # a stance dimension or modulator this far from its default is mentioned
# Every input a manifest may declare: each one reaches the agents that declare it
# (tests/turn/test_agent_inputs.py); the loader refuses any other name.
AGENT_INPUTS: Final[frozenset[str]] = frozenset(
    {
        "user_message",
        "conversation_history",
        "stance",
        "modulators",
        "user_facts",
        "open_threads",
        "retrieved_episodes",
        "knowledge",
        "active_claims",
    }
)
_DEFAULT_STANCE: Final = StanceVector(last_update_ts=0.0).to_dict()
_DEFAULT_MODULATORS: Final = GlobalModulators().to_dict()


def load_system_text(prompts: Prompts) -> str:
    """The agents' shared system message (``agents/_system.md``); raises if it is missing."""
    return prompts.read("agents/_system.md").strip()


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def lead_context(
    history: Sequence[Mapping[str, Any]],
    stance: StanceVector,
    modulators: GlobalModulators | None = None,
) -> str:
    """The part of the context known before the message arrives: the last exchange,
    Rilai's state and (when given: an agent declares them) the modulators that moved.
    It comes first, so it is evaluated between turns (``warm_messages``)."""
    lines: list[str] = []
    if history:
        said = "; ".join(
            f"{'person' if m.get('role') == 'user' else 'Rilai'}: "
            f"{_excerpt(str(m.get('content', '')), HISTORY_CHARS)}"
            for m in history[-2:]
        )
        lines.append(f"Just before: {said}")
    moved = _moved(stance.to_dict(), _DEFAULT_STANCE)
    if moved:
        lines.append("Rilai's state: " + moved)
    pressure = _moved(modulators.to_dict(), _DEFAULT_MODULATORS) if modulators else ""
    if pressure:
        lines.append("Pressure: " + pressure.replace("_", " "))
    return "\n".join(lines)


def _moved(values: Mapping[str, float], defaults: Mapping[str, float]) -> str:
    return ", ".join(
        f"{name} {value:.1f}"
        for name, value in values.items()
        if abs(value - defaults[name]) >= MOVED
    )


def declared_inputs(specs: Sequence[AgentSpec]) -> frozenset[str]:
    """The inputs the given agents declare, together (what the shared context carries)."""
    return frozenset(name for spec in specs for name in spec.manifest.inputs)


def turn_context(state: TurnState, inputs: Collection[str] | None = None) -> str:
    """The turn's shared context, compact and in time order: the last exchange and Rilai's
    state (known before the message: ``lead_context``), then the message, its strong
    signals and what memory recalled for it.

    ``inputs``: what the turn's scheduled agents declare (:func:`declared_inputs`); the
    modulators, open threads, an earlier episode and their documents are said only when
    one of them reads it. None: every input that has something to say.
    """

    def wanted(name: str) -> bool:
        return inputs is None or name in inputs

    modulators = state.modulators if wanted("modulators") else None
    lead = lead_context(state.history, state.stance, modulators)
    lines = [lead] if lead else []
    lines.append(f'The person says: "{_excerpt(state.user_text, MESSAGE_CHARS) or "(nothing)"}"')
    signals = sorted(
        ((name, out.probability) for name, out in state.sensors.items()),
        key=lambda kv: (-kv[1], kv[0]),
    )
    strong = [f"{name} {p:.1f}" for name, p in signals if p >= SIGNAL_FLOOR]
    if strong:
        lines.append("Signals: " + ", ".join(strong[:4]))
    recall = state.recall
    facts = _texts(recall.user_facts, ("fact",), 3)
    if facts:
        lines.append("Known about them: " + "; ".join(facts))
    threads = _texts(recall.open_threads, ("title", "text"), MAX_THREADS)
    if threads and wanted("open_threads"):
        lines.append("Still open: " + "; ".join(threads))
    episodes = _texts(recall.episodes, ("summary", "content"), MAX_EPISODES)
    if episodes and wanted("retrieved_episodes"):
        lines.append("Earlier: " + "; ".join(episodes))
    documents = _texts(recall.knowledge, ("text",), MAX_DOCUMENTS)
    if documents and wanted("knowledge"):
        lines.append("From their documents: " + "; ".join(documents))
    return "\n".join(lines)


def _texts(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], limit: int) -> list[str]:
    """The first non-empty of ``keys`` of up to ``limit`` recall rows, each cut short."""
    out: list[str] = []
    for row in rows:
        text = next((str(row[k]) for k in keys if str(row.get(k) or "").strip()), "")
        if text:
            out.append(_excerpt(text, MEMORY_LINE_CHARS))
        if len(out) >= limit:
            break
    return out


def warm_messages(system_text: str, lead: str) -> list[ChatMessage]:
    """The start every agent prompt of the next turn shares (for ``Prefills.prefill``)."""
    return [ChatMessage("system", _system_content(system_text, lead))]


def _system_content(system_text: str, context: str) -> str:
    return f"{system_text}\n\nContext:\n{context}"


def agent_messages(
    system_text: str,
    context: str,
    spec: AgentSpec,
    *,
    followup: str = "",
    claims: Sequence[Claim] = (),
) -> list[ChatMessage]:
    """[system: static + context] [user: the agent's question, its labels (+ the claims so
    far, for an agent that declares ``active_claims``) (+ a follow-up)]."""
    user = f"Your role: {spec.manifest.display_name}. {spec.prompt}"
    if spec.labels:
        user += " Labels: " + ", ".join(lab.name for lab in spec.labels) + "."
    if claims and "active_claims" in spec.manifest.inputs:
        said = [_excerpt(c.text, CLAIM_CHARS) for c in claims[:MAX_CLAIMS] if c.text.strip()]
        if said:
            user += "\nClaims so far: " + "; ".join(said) + "."
    if followup:
        user += "\n" + followup
    return [
        ChatMessage("system", _system_content(system_text, context)),
        ChatMessage("user", user),
    ]
