"""Stages 6–7: the council decides, the voice streams, the critics check, and a failing
reply is regenerated with the critics' feedback, then escalated, then replaced by a
deterministic fallback. The reply that is shown always passes the safety critic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.contracts import CriticResult, EventKind
from rilai_desktop.contracts.llm import LLM, Completion, Prefills
from rilai_desktop.turn.deliberation.council import CAREFUL_QUESTION, Council
from rilai_desktop.turn.deliberation.influence import agent_influence
from rilai_desktop.turn.ports import Models, Recall
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.speaking import voice, voice_prompt
from rilai_desktop.turn.speaking.critics import (
    Critics,
    blocking,
    regeneration_feedback,
    safety_passed,
)
from rilai_desktop.turn.speaking.safety_reply import check_in
from rilai_desktop.turn.speaking.voice_guard import voice_guard
from rilai_desktop.turn.state import Emit, TurnState, VoiceDelta

Publish = Callable[[VoiceDelta], None]
CallerScope = Callable[[str], AbstractContextManager[None]]


def memory_used(recall: Recall) -> dict[str, Any]:
    """The ``memory.used`` payload: the memory lines the voice's notes hold, each with the
    entry it came from (derived from what the prompt builder renders, so what recall found
    and the notes dropped is not there)."""
    notes = voice_prompt.memory_notes(recall)
    return {
        "entries": [
            {"kind": n.kind, "entry_id": n.entry_id, "text": n.line}
            for n in notes
            if n.kind != "knowledge"
        ],
        "knowledge": [
            {"kb": n.kb, "id": n.entry_id, "text": n.line} for n in notes if n.kind == "knowledge"
        ],
    }


@dataclass
class Spoken:
    reply: str
    prompt: str = ""
    model: str = ""
    escalated: bool = False
    attempts: int = 0
    reply_tokens: int = 0  # generated tokens of the attempt that is shown (0: a template)
    ttft_at: float | None = None  # perf_counter() of the first streamed piece
    critics: list[CriticResult] = field(default_factory=list)


@dataclass
class SpeakingStage:
    models: Models
    council: Council
    critics: Critics
    prompts: Prompts
    escalate_below: float = 0.5
    max_regenerations: int = 2

    def decide(self, state: TurnState, emit: Emit, scope: CallerScope) -> None:
        with scope("council"):
            outcome = self.council.decide(state)
        state.decision = outcome.decision
        state.decision_reasons = list(outcome.reasons)
        if outcome.usage is not None:
            u = outcome.usage
            state.add_tokens(
                "council", u.prompt_tokens, u.cached_prompt_tokens, u.completion_tokens
            )
        try:
            influence = agent_influence(state, self.council, used_model=outcome.used_model)
        except Exception as exc:  # a measurement must never cost the turn its decision
            influence = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        state.agent_influence = influence
        act = outcome.decision.speech_act
        emit(
            EventKind.COUNCIL_DECISION_MADE,
            {
                "speak": outcome.decision.speak,
                "urgency": outcome.decision.urgency,
                "intent": act.intent,
                "key_points": act.key_points,
                "tone": act.tone,
                "do_not": act.do_not,
                "asks_user": act.asks_user,
                "thinking": outcome.decision.thinking,
                "reasons": outcome.reasons,
                "used_model": outcome.used_model,
                "consensus": state.consensus,
                "agent_influence": influence,
            },
        )

    def warm(self, history: Sequence[Mapping[str, str]]) -> int:
        """Evaluate the next reply's stable prompt start (static system + the conversation
        window for ``history``) on the voice model; the tokens evaluated (0 for a model
        without a cache). Called between turns, so the next reply's first token comes after
        only this turn's notes and message are evaluated."""
        model = self.models.for_role("voice")
        if not isinstance(model, Prefills):
            return 0
        return model.prefill(voice_prompt.prefix_messages(history, prompts=self.prompts))

    def _escalation_role(self) -> str:
        """ "escalation", unless it names the voice's own tier (the large voice): then the
        voice's dedicated context, whose cached prompt prefix a second context lacks
        (measured: 12 s to the first token on the other context against 2.5 s on it)."""
        tier_for_role = getattr(self.models, "tier_for_role", None)
        if callable(tier_for_role) and tier_for_role("escalation") == tier_for_role("voice"):
            return "voice"
        return "escalation"

    def speak(self, state: TurnState, emit: Emit, publish: Publish, scope: CallerScope) -> Spoken:
        decision = state.decision
        if decision is None or not decision.speak:
            emit(EventKind.VOICE_RENDERED, {"text": "", "silent": True, "model": ""})
            return Spoken("")
        if "safety_interrupt" in state.flags or decision.speech_act.intent == "protect":
            return self._protect(state, emit, publish)
        # the memory lines are the same on every attempt (feedback changes only the rest)
        emit(EventKind.MEMORY_USED, memory_used(state.recall))
        escalated = state.consensus < self.escalate_below
        role = self._escalation_role() if escalated else "voice"
        spoken = Spoken("", escalated=escalated)
        feedback: list[str] = []
        failed: list[str] = []  # openings of rejected attempts: the next may not start so
        attempt = 0
        while True:
            model = self.models.for_role(role)
            reply = self._render(
                state, model, feedback, emit, publish, scope, spoken, attempt, failed
            )
            private = voice_prompt.private_texts(state, feedback, prompts=self.prompts)
            results = self._review(reply, state, emit, attempt, private)
            spoken.attempts = attempt + 1
            if reply and not blocking(results):
                if extra := check_in(state, reply, CAREFUL_QUESTION):
                    reply = f"{reply} {extra}"  # careful mode: the check-in the voice left out
                    publish(VoiceDelta(state.session_id, state.turn_id, f" {extra}"))
                spoken.reply, spoken.critics = reply, results
                return spoken
            attempt += 1
            if attempt > self.max_regenerations:
                return self._fallback(state, emit, publish, spoken, attempt, results)
            feedback = regeneration_feedback(results) or ["Write a short, warm reply."]
            opening = " ".join(reply.split()[:3])
            if len(opening.split()) == 3:  # the same prompt gave the same reply three times
                failed.append(opening)
            if attempt == self.max_regenerations and not spoken.escalated:
                role, spoken.escalated = self._escalation_role(), True

    def _render(
        self,
        state: TurnState,
        model: LLM,
        feedback: list[str],
        emit: Emit,
        publish: Publish,
        scope: CallerScope,
        spoken: Spoken,
        attempt: int,
        failed: Sequence[str] = (),
    ) -> str:
        messages = voice.voice_messages(state, feedback=feedback, prompts=self.prompts)
        spoken.prompt = voice.voice_prompt_text(state, prompts=self.prompts)
        spoken.model = model.model_id
        if attempt:
            publish(VoiceDelta(state.session_id, state.turn_id, "", reset=True))
        try:
            with scope("voice"):
                stream = model.complete(
                    messages,
                    stream=True,
                    max_tokens=voice.VOICE_MAX_TOKENS,
                    temperature=voice.VOICE_TEMPERATURE,
                    stop=list(voice.VOICE_STOP),
                    guard=voice_guard(state, avoid=failed),
                )
                if isinstance(stream, Completion):
                    completion = stream
                else:
                    for piece in stream:
                        if spoken.ttft_at is None:
                            spoken.ttft_at = time.perf_counter()
                        publish(VoiceDelta(state.session_id, state.turn_id, piece))
                    completion = stream.result
        except Exception as exc:  # the voice failing must not lose the turn
            emit(EventKind.ERROR, {"error": f"voice: {type(exc).__name__}: {exc}"[:500]})
            return ""
        u = completion.usage
        state.add_tokens("voice", u.prompt_tokens, u.cached_prompt_tokens, u.completion_tokens)
        spoken.reply_tokens = u.completion_tokens
        reply = voice.clean_reply(completion.text)
        emit(
            EventKind.VOICE_RENDERED,
            {
                "text": reply,
                "model": model.model_id,
                "attempt": attempt,
                "escalated": spoken.escalated,
                "feedback": feedback,
                "prompt": spoken.prompt,
                "finish_reason": completion.finish_reason,
                # what the model wrote was changed to be shown (cut, control characters or
                # invalid Unicode dropped, tokens removed): the log says so, with its size
                **(
                    {"cleaned_from_chars": len(completion.text)} if reply != completion.text else {}
                ),
            },
        )
        return reply

    def _review(
        self,
        reply: str,
        state: TurnState,
        emit: Emit,
        attempt: int,
        private: Sequence[str] | None = None,
    ) -> list[CriticResult]:
        results = self.critics.review(reply, state, private=private)
        usage = self.critics.last_usage
        if usage is not None:
            state.add_tokens(
                "critics", usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens
            )
        state.critics = list(results)
        emit(
            EventKind.CRITICS_UPDATED,
            {"results": [r.model_dump(mode="json") for r in results], "attempt": attempt},
        )
        return results

    def _protect(self, state: TurnState, emit: Emit, publish: Publish) -> Spoken:
        reply = voice.safety_reply(state, prompts=self.prompts)
        publish(VoiceDelta(state.session_id, state.turn_id, reply))
        emit(EventKind.VOICE_RENDERED, {"text": reply, "model": "safety-template", "attempt": 0})
        results = self._review(reply, state, emit, 0)
        return Spoken(
            reply, model="safety-template", attempts=1, critics=results, ttft_at=time.perf_counter()
        )

    def _fallback(
        self,
        state: TurnState,
        emit: Emit,
        publish: Publish,
        spoken: Spoken,
        attempt: int,
        failed: Sequence[CriticResult],
    ) -> Spoken:
        """The last attempt failed too: a short reply built from the decision replaces it
        (never shown as it is); the events say it is a fallback and why."""
        why = [f"{r.critic}: {r.reason}"[:200] for r in blocking(failed)] or ["empty reply"]
        reply = voice.fallback_reply(state, prompts=self.prompts)
        results = self.critics.review(reply, state)
        if not safety_passed(results):
            reply = voice.safety_reply(state, prompts=self.prompts)
            results = self.critics.review(reply, state)
        publish(VoiceDelta(state.session_id, state.turn_id, "", reset=True))
        publish(VoiceDelta(state.session_id, state.turn_id, reply))
        emit(
            EventKind.VOICE_RENDERED,
            {
                "text": reply,
                "model": "fallback-template",
                "attempt": attempt,
                "fallback": True,
                "replaced_because": why,
            },
        )
        state.critics = list(results)
        emit(
            EventKind.CRITICS_UPDATED,
            {
                "results": [r.model_dump(mode="json") for r in results],
                "attempt": attempt,
                "fallback": True,
            },
        )
        spoken.reply, spoken.critics, spoken.model = reply, results, "fallback-template"
        spoken.reply_tokens = 0
        spoken.attempts = attempt + 1
        return spoken
