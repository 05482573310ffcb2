"""Read models folded from the event log. They hold no truth of their own: each can be
rebuilt at any time by replaying the log (``Projection.rebuild(log.replay_all())``).

- Conversation: the user and assistant messages, in order (aborted turns flagged; a turn
  that TURN_RETRACTED names leaves it, its events stay in the log).
- Analytics: tokens and latency per model, time per turn.
- Debug: per-turn agent traces, stage timings and errors.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from rilai_desktop.contracts import EngineEvent, EventKind

P = TypeVar("P", bound="Projection")


class Projection(Protocol):
    def apply(self, event: EngineEvent) -> None: ...


def rebuild(projection: P, events: Iterable[EngineEvent]) -> P:
    for event in events:
        projection.apply(event)
    return projection


# ── conversation ─────────────────────────────────────────────────────────────


@dataclass
class Message:
    role: str  # "user" | "assistant"
    content: str
    session_id: str
    turn_id: int
    timestamp: str
    aborted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "content": self.content,
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "timestamp": self.timestamp,
            "aborted": self.aborted,
        }


@dataclass
class ConversationProjection:
    messages: list[Message] = field(default_factory=list)
    _open: dict[tuple[str, int], Message] = field(default_factory=dict)

    def apply(self, event: EngineEvent) -> None:
        key = (event.session_id, event.turn_id)
        if event.kind is EventKind.TURN_STARTED:
            msg = Message(
                "user",
                str(event.payload.get("user_input", "")),
                event.session_id,
                event.turn_id,
                event.ts_wall.isoformat(),
            )
            self.messages.append(msg)
            self._open[key] = msg
        elif event.kind is EventKind.TURN_COMPLETED:
            self._open.pop(key, None)
            response = event.payload.get("response")
            if response:
                self.messages.append(
                    Message(
                        "assistant",
                        str(response),
                        event.session_id,
                        event.turn_id,
                        event.ts_wall.isoformat(),
                    )
                )
        elif event.kind is EventKind.TURN_ABORTED:
            opened = self._open.pop(key, None)
            if opened is not None:
                opened.aborted = True
        elif event.kind is EventKind.TURN_RETRACTED:
            gone = event.payload.get("turn_id")
            self.messages = [
                m
                for m in self.messages
                if not (m.session_id == event.session_id and m.turn_id == gone)
            ]

    def recent(self, n: int, *, include_aborted: bool = False) -> list[Message]:
        msgs = [m for m in self.messages if include_aborted or not m.aborted]
        return msgs[-n:] if n > 0 else []


# ── analytics ────────────────────────────────────────────────────────────────


@dataclass
class ModelStats:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        lat = self.latency_ms
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_ms_total": sum(lat),
            "latency_ms_mean": round(statistics.fmean(lat), 1) if lat else None,
            "latency_ms_p95": _percentile(lat, 95),
        }


def _percentile(values: list[int], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return float(ordered[index])


@dataclass
class AnalyticsProjection:
    per_model: dict[str, ModelStats] = field(default_factory=dict)
    turn_ms: dict[tuple[str, int], int] = field(default_factory=dict)
    turns_completed: int = 0
    turns_aborted: int = 0

    def apply(self, event: EngineEvent) -> None:
        if event.kind is EventKind.MODEL_CALL_COMPLETED:
            p = event.payload
            stats = self.per_model.setdefault(str(p["model"]), ModelStats())
            stats.calls += 1
            stats.prompt_tokens += int(p["prompt_tokens"])
            stats.completion_tokens += int(p["completion_tokens"])
            stats.latency_ms.append(int(p["latency_ms"]))
        elif event.kind is EventKind.TURN_COMPLETED:
            self.turns_completed += 1
            self.turn_ms[(event.session_id, event.turn_id)] = int(event.payload["total_time_ms"])
        elif event.kind is EventKind.TURN_ABORTED:
            self.turns_aborted += 1

    def as_dict(self) -> dict[str, Any]:
        times = list(self.turn_ms.values())
        return {
            "models": {name: s.as_dict() for name, s in sorted(self.per_model.items())},
            "turns": {
                "completed": self.turns_completed,
                "aborted": self.turns_aborted,
                "time_ms_mean": round(statistics.fmean(times), 1) if times else None,
                "time_ms_p50": _percentile(times, 50),
                "time_ms_p95": _percentile(times, 95),
            },
        }


# ── debug ────────────────────────────────────────────────────────────────────


@dataclass
class TurnTrace:
    session_id: str
    turn_id: int
    agents: list[dict[str, Any]] = field(default_factory=list)
    stages: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    status: str = "open"  # open | completed | aborted
    _stage_start: float | None = None
    _started: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "status": self.status,
            "agents": self.agents,
            "stages": self.stages,
            "errors": self.errors,
        }


@dataclass
class DebugProjection:
    turns: dict[tuple[str, int], TurnTrace] = field(default_factory=dict)

    def apply(self, event: EngineEvent) -> None:
        key = (event.session_id, event.turn_id)
        trace = self.turns.get(key)
        if trace is None:
            trace = self.turns[key] = TurnTrace(event.session_id, event.turn_id)
        kind, p, t = event.kind, event.payload, event.ts_monotonic
        if kind is EventKind.TURN_STAGE_CHANGED:
            self._close_stage(trace, t)
            trace.stages.append({"stage": p["stage"], "ms": None})
            trace._stage_start = t
        elif kind is EventKind.AGENT_STARTED:
            trace._started[str(p["agent_id"])] = t
        elif kind is EventKind.AGENT_COMPLETED:
            trace.agents.append(
                {
                    "agent_id": p["agent_id"],
                    "status": "completed",
                    "observation": p["observation"],
                    "urgency": p["urgency"],
                    "confidence": p["confidence"],
                    "claims": len(p["claims"]),
                    "ms": p["processing_time_ms"],
                }
            )
        elif kind is EventKind.AGENT_FAILED:
            started = trace._started.get(str(p["agent_id"]))
            trace.agents.append(
                {
                    "agent_id": p["agent_id"],
                    "status": "failed",
                    "error": p["error"],
                    "ms": None if started is None else round((t - started) * 1000),
                }
            )
        elif kind is EventKind.ERROR:
            trace.errors.append({"error": p["error"], "seq": event.seq})
        elif kind in (EventKind.TURN_COMPLETED, EventKind.TURN_ABORTED):
            self._close_stage(trace, t)
            trace.status = "completed" if kind is EventKind.TURN_COMPLETED else "aborted"

    @staticmethod
    def _close_stage(trace: TurnTrace, now: float) -> None:
        if trace.stages and trace._stage_start is not None and trace.stages[-1]["ms"] is None:
            trace.stages[-1]["ms"] = round((now - trace._stage_start) * 1000, 1)
            trace._stage_start = None
