"""What a finished turn hands its caller: the reply and everything /why and --json show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.turn.state import TurnState


@dataclass
class AgentRecord:
    agent_id: str
    wave: int  # 0, 1, ...; follow-ups carry the round they answered (see ``followup``)
    score: float
    why: tuple[str, ...]
    failed: bool
    error: str
    ms: float
    output: dict[str, Any]
    followup: bool = False


@dataclass
class TurnResult:
    session_id: str
    turn_id: int
    reply: str
    state: TurnState
    agents: list[AgentRecord] = field(default_factory=list)
    importance: float = 0.0
    memory_summary: dict[str, Any] = field(default_factory=dict)
    voice_prompt: str = ""
    voice_model: str = ""
    escalated: bool = False
    attempts: int = 0
    reply_tokens: int = 0  # the shown reply's generated tokens (0: a template reply)
    total_ms: float = 0.0
    ttft_ms: float | None = None  # from the start of the turn to the first voice token

    def as_dict(self) -> dict[str, Any]:
        """The `rilai chat --json` shape."""
        s = self.state
        decision = s.decision
        return {
            "session_id": self.session_id,
            "turn_id": self.turn_id,
            "reply": self.reply,
            "council": {
                "speak": decision.speak if decision else False,
                "urgency": decision.urgency if decision else "low",
                "intent": decision.speech_act.intent if decision else "observe",
                "tone": decision.speech_act.tone if decision else "",
                "key_points": decision.speech_act.key_points if decision else [],
                "do_not": decision.speech_act.do_not if decision else [],
                "asks_user": decision.speech_act.asks_user if decision else None,
                "reasons": list(s.decision_reasons),
            },
            "sensors": {name: out.probability for name, out in s.sensors.items()},
            "sensor_evidence": {
                name: out.evidence for name, out in s.sensors.items() if out.evidence
            },
            "agents": [
                {
                    "agent_id": a.agent_id,
                    "wave": a.wave,
                    "followup": a.followup,
                    "score": round(a.score, 3),
                    "why": list(a.why),
                    "failed": a.failed,
                    "error": a.error,
                    "ms": round(a.ms, 1),
                    "output": a.output,
                }
                for a in self.agents
            ],
            "claims": [c.model_dump(mode="json") for c in s.claims],
            "consensus": [
                {
                    "round": r.round,
                    "consensus": round(r.consensus, 4),
                    "by_type": r.by_type,
                    "active_claims": r.active_claims,
                    "contested": r.contested,
                    "followups": r.followups,
                    "exit_reason": r.exit_reason,
                }
                for r in s.rounds
            ],
            "final_consensus": s.consensus,
            "critics": [c.model_dump(mode="json") for c in s.critics],
            "stance": s.stance.to_dict(),
            "modulators": s.modulators.to_dict(),
            "flags": sorted(s.flags),
            "importance": self.importance,
            "memory": self.memory_summary,
            "voice": {
                "model": self.voice_model,
                "escalated": self.escalated,
                "attempts": self.attempts,
                "reply_tokens": self.reply_tokens,
            },
            "stage_ms": {k: round(v, 1) for k, v in s.stage_ms.items()},
            "tokens": s.tokens,
            "total_ms": round(self.total_ms, 1),
            "ttft_ms": None if self.ttft_ms is None else round(self.ttft_ms, 1),
        }
