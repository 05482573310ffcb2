"""The agent-event stream: EngineEvents as seed 004's ``AgentEvent`` union (``WS /events``).

Every message has ``event``, ``timestamp`` (ISO 8601) and ``reasoning_id`` (a UUID per
turn: uuid5 of the session and turn, so every event of one turn shares it), plus the
kind's payload (seed 004, 3.2). The mapping (docs/api.md):

| EngineEvent | AgentEvent |
|---|---|
| TURN_STARTED | ``session_started`` (session_id, query = the message, depth 0) |
| AGENT_STARTED | ``action_started`` (skill_name = the agent id) |
| AGENT_COMPLETED | ``thought`` (thought = the observation, depth = the wave) |
| COUNCIL_DECISION_MADE | ``action_planned`` (skill_name "voice", params: intent, tone) |
| MEMORY_RETRIEVED | ``memory_read`` (layer 3, key "recall", data = a count) |
| MEMORY_RETRIEVAL_PERFORMED | ``search_issued`` then ``search_result`` |
| MEMORY_COMMITTED | ``memory_written`` (layer 3, key "turn") |
| VOICE_RENDERED | ``converged`` (summary = the reply) |
| TURN_COMPLETED | ``session_ended`` (converged true, summary = the reply) |
| TURN_ABORTED, AGENT_FAILED, ERROR | ``error`` (message, component) |

Other kinds (sensors, stance, rounds, model calls, timings) are not part of the seed's
union and are not sent. ``EventQueue`` is bounded: a client that does not keep up loses
the oldest events, counted in ``dropped``, and never slows a turn.
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from typing import Any, Final

from rilai_desktop.contracts import EngineEvent, EventKind

QUEUE_SIZE: Final[int] = 1000
_NAMESPACE: Final[uuid.UUID] = uuid.UUID("7c1b5e0e-9c1d-4b55-9a63-2a8e0d6b1f29")


def reasoning_id(session_id: str, turn_id: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{session_id}:{turn_id}"))


def _text(value: Any, limit: int = 2000) -> str:
    return str(value or "")[:limit]


def agent_events(event: EngineEvent) -> list[dict[str, Any]]:
    """The AgentEvents one EngineEvent becomes (none for most kinds)."""
    p, kind = event.payload, event.kind
    base = {
        "timestamp": event.ts_wall.isoformat(),
        "reasoning_id": reasoning_id(event.session_id, event.turn_id),
    }
    out: list[dict[str, Any]] = []
    if kind is EventKind.TURN_STARTED:
        out.append({"event": "session_started", "session_id": event.session_id,
                    "query": _text(p.get("user_input")), "depth": 0})  # fmt: skip
    elif kind is EventKind.AGENT_STARTED:
        out.append({"event": "action_started", "skill_name": _text(p.get("agent_id"), 100)})
    elif kind is EventKind.AGENT_COMPLETED:
        wave = p.get("wave", 0)
        out.append({"event": "thought", "thought": _text(p.get("observation")),
                    "depth": wave if isinstance(wave, int) else 0})  # fmt: skip
    elif kind is EventKind.COUNCIL_DECISION_MADE:
        decision = p.get("decision") or {}
        act = decision.get("speech_act") or {} if isinstance(decision, dict) else {}
        params = {"intent": _text(act.get("intent"), 40), "tone": _text(act.get("tone"), 40)}
        out.append({"event": "action_planned", "skill_name": "voice", "params": params,
                    "depth": 0})  # fmt: skip
    elif kind is EventKind.MEMORY_RETRIEVED:
        found = sum(len(p.get(k) or []) for k in ("episodes", "user_facts", "items", "knowledge"))
        out.append({"event": "memory_read", "layer": 3, "key": "recall", "data": str(found)})
    elif kind is EventKind.MEMORY_RETRIEVAL_PERFORMED:
        query, hits = _text(p.get("query"), 500), p.get("results") or p.get("items") or []
        count = len(hits) if isinstance(hits, list) else int(p.get("count", 0) or 0)
        out.append({"event": "search_issued", "kb_name": "kb_core", "query": query,
                    "limit": int(p.get("k", 10) or 10)})  # fmt: skip
        out.append({"event": "search_result", "kb_name": "kb_core", "hits_count": count})
    elif kind is EventKind.MEMORY_COMMITTED:
        out.append({"event": "memory_written", "layer": 3, "key": "turn"})
    elif kind is EventKind.VOICE_RENDERED and p.get("text"):
        out.append({"event": "converged", "summary": _text(p.get("text"))})
    elif kind is EventKind.TURN_COMPLETED:
        out.append({"event": "session_ended", "session_id": event.session_id,
                    "converged": True, "summary": _text(p.get("response"))})  # fmt: skip
    elif kind is EventKind.TURN_ABORTED:
        out.append({"event": "error", "message": f"turn aborted: {_text(p.get('reason'), 200)}",
                    "component": "turn"})  # fmt: skip
    elif kind is EventKind.AGENT_FAILED:
        out.append({"event": "error", "message": _text(p.get("error"), 500),
                    "component": _text(p.get("agent_id"), 100)})  # fmt: skip
    elif kind is EventKind.ERROR:
        out.append({"event": "error", "message": _text(p.get("error"), 500), "component": "engine"})
    return [{**e, **base} for e in out]


class EventQueue:
    """A bounded, thread-safe queue: ``put`` from the engine's threads never blocks; the
    oldest event goes when it is full (``dropped`` counts them)."""

    def __init__(self, size: int = QUEUE_SIZE) -> None:
        self._items: deque[dict[str, Any]] = deque()
        self._size = size
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self.dropped = 0

    def put(self, item: dict[str, Any]) -> None:
        with self._lock:
            if len(self._items) >= self._size:
                self._items.popleft()
                self.dropped += 1
            self._items.append(item)
            self._ready.set()

    def drain(self) -> list[dict[str, Any]]:
        with self._lock:
            items = list(self._items)
            self._items.clear()
            self._ready.clear()
            return items

    def wait(self, timeout: float) -> bool:
        return self._ready.wait(timeout)
