"""The TurnRunner: one user message through every stage, each event logged first, then
published the moment it happens (DESIGN.md "The turn").

``run_turn(text, on_update)`` runs synchronously and calls ``on_update`` with every
EngineEvent (after it is in the log) and every VoiceDelta (streamed reply pieces, not
logged). ``run(text)`` is the same as an iterator: the turn runs in a worker thread and the
caller receives updates live. A stage that raises becomes an ERROR event and the turn goes
on with that stage's defaults; every turn ends with TURN_COMPLETED (a killed process leaves
a turn that the log marks TURN_ABORTED when it is next opened).

After a turn, while the person reads the reply, a background thread evaluates what the
next turn's prompts will start with: on every agent context the static instructions and
the lead of the context (``WaveStage.warm``), and on the voice model the static system
prompt and the conversation so far (``SpeakingStage.warm``). The next turn then pays only
for the new message, its signals, memory and notes.
``wait_warm()`` waits for it (closing, benchmarks); ``last_warm`` says what it cost.
"""

from __future__ import annotations

import queue
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.errors import RilaiError
from rilai_desktop.turn.agents.context import turn_context
from rilai_desktop.turn.agents.stage import WaveStage
from rilai_desktop.turn.commit import plan_commit
from rilai_desktop.turn.model_events import ModelEventRelay
from rilai_desktop.turn.ports import EventStore, Recall, TurnMemory
from rilai_desktop.turn.result import AgentRecord, TurnResult
from rilai_desktop.turn.safety_check import SafetyCheck
from rilai_desktop.turn.safety_screen import screen_turn
from rilai_desktop.turn.sanitize import clean_input
from rilai_desktop.turn.sensors import (
    INJECTION_THRESHOLD,
    FastSensors,
)
from rilai_desktop.turn.session import CAREFUL_FLAG, SessionState, restore
from rilai_desktop.turn.speaking.stage import SpeakingStage, Spoken
from rilai_desktop.turn.state import TurnState, VoiceDelta
from rilai_desktop.turn.warmup import Warmup

Update = EngineEvent | VoiceDelta


class TurnCancelled(BaseException):
    """The caller cancelled the turn (``run_turn(..., cancel=event)``). Raised at the next
    stage boundary or streamed piece; the runner logs TURN_ABORTED (reason "cancelled",
    the stage) and re-raises. A BaseException, so no stage's ``except Exception`` takes
    it for a failure to recover from."""

    def __init__(self, turn_id: int, stage: str) -> None:
        super().__init__(f"turn {turn_id} cancelled during {stage}")
        self.turn_id, self.stage = turn_id, stage


OnUpdate = Callable[[Update], None]
# what a turn keeps in the context store (with an expiry) and points to from the journal
ARTEFACTS = ("agents", "claims", "consensus", "council", "critics", "sensors", "flags")
STAGES = ("ingest", "sense", "recall", "agents", "deliberate", "council", "voice", "commit")


@dataclass(frozen=True)
class TurnSettings:
    history_messages: int = 6
    warm_next_voice: bool = True  # evaluate the next voice prompt's start between turns


class TurnRunner:
    def __init__(
        self,
        *,
        events: EventStore,
        memory: TurnMemory | None,
        sensors: FastSensors,
        waves: WaveStage,
        speaking: SpeakingStage,
        relay: ModelEventRelay | None = None,
        settings: TurnSettings | None = None,
        session_id: str | None = None,
        clock: Callable[[], float] = time.time,
        safety_check: SafetyCheck | None = None,
    ) -> None:
        self.safety_check = safety_check  # the model check of the grey band (None: off)
        self.events = events
        self.memory = memory
        self.sensors = sensors
        self.waves = waves
        self.speaking = speaking
        self.relay = relay
        self.settings = settings or TurnSettings()
        self._clock = clock
        self._lock = threading.Lock()
        sid = session_id or events.latest_session_id()
        self._new_session = sid is None
        self.session = restore(events, sid) if sid else SessionState(str(uuid.uuid4()))
        self.last_result: TurnResult | None = None
        self.warm_next_voice = self.settings.warm_next_voice
        self._warmup = Warmup()

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def running(self) -> bool:
        """True while a turn runs: the daemon neither decays nor nudges meanwhile."""
        return self._lock.locked()

    @property
    def turn_lock(self) -> threading.Lock:
        """Held for the whole of a turn. Code outside a turn that changes the session's
        stance/modulators (the daemon's decay) takes it without blocking, so a turn never
        starts from, or overwrites, a half-applied change."""
        return self._lock

    def reset(self) -> str:
        """Start a new session: the conversation starts over; memory and stance stay."""
        old = self.session
        if self.events.last_turn_id(old.session_id) > 0:
            self.events.append(old.session_id, 0, EventKind.SESSION_ENDED, {"reason": "reset"})
        self.session = SessionState(
            str(uuid.uuid4()),
            stance=old.stance,
            modulators=old.modulators,
            last_run=old.last_run,
            risk=old.risk,  # a disclosure is not forgotten by a reset
        )
        self._new_session = True
        return self.session.session_id

    def retract_last(self, reason: str) -> tuple[int, str]:
        """Take the last turn back (``reason``: "regenerate" or "edit"): TURN_RETRACTED is
        logged at turn 0 and its message and reply leave the conversation; its events stay
        in the log (the inspector still opens it). Returns (its turn id, its text). What it
        committed to memory and its stance change stay: the person did say it. A RilaiError
        when there is no finished turn to take back."""
        with self._lock:
            last = self.session.last_exchange()
            if last is None:
                raise RilaiError(
                    "There is no finished turn to take back in this conversation",
                    recovery_suggestions=["Send a message first"],
                )
            turn_id = last[0]
            payload = {"turn_id": turn_id, "reason": reason}
            self.events.append(self.session_id, 0, EventKind.TURN_RETRACTED, payload)
            self.session.retract(turn_id)
            if self.last_result is not None and self.last_result.turn_id == turn_id:
                self.last_result = None
            return last

    def switch(self, session_id: str) -> str:
        """Go on with an earlier conversation: its history comes back from the log; the
        stance, modulators, cooldowns and careful window stay as they are now (they are
        the person's and Rilai's, not the conversation's, as after ``reset``). Nothing is
        ended or logged; the next turn continues that session's numbering."""
        if session_id != self.session_id:
            old, state = self.session, restore(self.events, session_id)
            state.stance, state.modulators = old.stance, old.modulators
            state.last_run, state.risk = old.last_run, old.risk
            self.session, self._new_session = state, False
        return self.session_id

    # ── running ────────────────────────────────────────────────────────────
    def run(self, text: str) -> Iterator[Update]:
        """The turn's updates as they happen (the turn runs in a worker thread)."""
        updates: queue.Queue[Update | None] = queue.Queue()
        failure: list[BaseException] = []

        def work() -> None:
            try:
                self.run_turn(text, updates.put)
            except BaseException as exc:  # re-raised in the caller's thread
                failure.append(exc)
            finally:
                updates.put(None)

        worker = threading.Thread(target=work, name="rilai-turn", daemon=True)
        worker.start()
        try:
            while (item := updates.get()) is not None:
                yield item
        finally:
            worker.join()
        if failure:
            raise failure[0]

    def run_turn(
        self,
        text: str,
        on_update: OnUpdate | None = None,
        cancel: threading.Event | None = None,
    ) -> TurnResult:
        """One turn. Setting ``cancel`` ends it at the next stage boundary or streamed
        reply piece: TURN_ABORTED is logged and :class:`TurnCancelled` raised; the message
        stays in the conversation with no reply, and the stance is not changed."""
        with self._lock:
            result = self._run(text, on_update or (lambda _u: None), cancel)
        if self.warm_next_voice:
            self._start_warm()
        return result

    # ── between turns ──────────────────────────────────────────────────────
    def _history(self) -> list[dict[str, Any]]:
        # Twice the voice's window: voice_prompt.history_messages picks a window start that
        # stays put across turns (KV-cache reuse); given only the window it would slide.
        history = self.session.history[-2 * self.settings.history_messages :]
        return [{"role": m["role"], "content": m["content"]} for m in history]

    def _start_warm(self) -> None:
        """Warm the voice model for the next turn in the background (see the module doc)."""
        history = self._history()
        lead = self.waves.lead(history, self.session.stance, self.session.modulators)
        self._warmup.start(lambda: self.waves.warm(lead), lambda: self.speaking.warm(history))

    @property
    def last_warm(self) -> dict[str, Any]:
        """Tokens and ms (or the error) of the last between-turns warm-up."""
        return self._warmup.last

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait for the between-turns warm-up; False if it is still running at ``timeout``."""
        return self._warmup.wait(timeout)

    def _run(self, raw: str, deliver: OnUpdate, cancel: threading.Event | None) -> TurnResult:
        start = time.perf_counter()
        sid = self.session_id
        if self._new_session:
            self.events.append(sid, 0, EventKind.SESSION_STARTED, {"session_id": sid})
            self._new_session = False
        text, notes = clean_input(raw)
        # the log hands out the turn id with TURN_STARTED, in one transaction: another
        # process on this conversation (a `rilai chat` beside the window) never shares it
        started = self.events.start_turn(sid, {"user_input": text, **notes})
        turn_id = started.turn_id
        stage = ["ingest"]
        last_seq = [started.seq]

        def publish(update: Update) -> None:
            if cancel is not None and cancel.is_set():
                raise TurnCancelled(turn_id, stage[0])
            deliver(update)

        def emit(kind: EventKind, payload: Mapping[str, Any]) -> None:
            event = self.events.append(sid, turn_id, kind, dict(payload))
            last_seq[0] = max(last_seq[0], event.seq)
            if kind is EventKind.TURN_STAGE_CHANGED:
                stage[0] = str(payload.get("stage", stage[0]))
            publish(event)

        state = TurnState(
            sid,
            turn_id,
            text,
            history=self._history(),
            stance=self.session.stance.model_copy(deep=True),
            modulators=self.session.modulators.model_copy(deep=True),
            started=start,
        )
        if self.session.risk.aged(self._clock()).careful:
            state.flags.add(CAREFUL_FLAG)
        result = TurnResult(sid, turn_id, "", state)
        records: list[AgentRecord] = []
        attach = self.relay.attached(emit) if self.relay else nullcontext()
        try:
            with attach:
                self._stages(text, started, state, result, records, emit, publish, start)
        except TurnCancelled as cancelled:
            deliver(
                self.events.append(
                    sid,
                    turn_id,
                    EventKind.TURN_ABORTED,
                    {
                        "reason": "cancelled",
                        "last_seq": last_seq[0],
                        "stage": cancelled.stage,
                    },
                )
            )
            self.session.add_exchange(text, "", turn_id)
            raise
        self.session.add_exchange(text, state.reply, turn_id)
        if state.safety is not None:  # sensing ran: the conversation's risk after this turn
            self.session.risk = state.safety.after
        self.session.stance, self.session.modulators = state.stance, state.modulators
        self.last_result = result
        return result

    def _stages(
        self,
        text: str,
        started: EngineEvent,
        state: TurnState,
        result: TurnResult,
        records: list[AgentRecord],
        emit: Callable[[EventKind, Mapping[str, Any]], None],
        publish: OnUpdate,
        start: float,
    ) -> None:
        publish(started)  # written by ``_run`` (the log's turn id)
        self._stage("ingest", state, emit, lambda: None)
        self._stage("sense", state, emit, lambda: self._sense(state, emit))
        safety = "safety_interrupt" in state.flags
        if not safety:
            self._stage("recall", state, emit, lambda: self._recall(state, emit))
            now = self._clock()
            contexts: list[str] = []  # the shared agent context, once the waves are planned
            self._stage(
                "agents",
                state,
                emit,
                lambda: self._agents(state, contexts, emit, records, now),
            )
            context = contexts[0] if contexts else turn_context(state)
            self._stage(
                "deliberate",
                state,
                emit,
                lambda: self.waves.deliberate(state, context, emit, records, self._scope),
            )
        self._stage("council", state, emit, lambda: self.speaking.decide(state, emit, self._scope))
        spoken: list[Spoken] = []
        self._stage(
            "voice",
            state,
            emit,
            lambda: spoken.append(self.speaking.speak(state, emit, publish, self._scope)),
        )
        if spoken:
            s = spoken[0]
            state.reply = s.reply
            result.voice_prompt, result.voice_model = s.prompt, s.model
            result.escalated, result.attempts = s.escalated, s.attempts
            result.reply_tokens = s.reply_tokens
            if s.ttft_at is not None:
                result.ttft_ms = (s.ttft_at - start) * 1000
        result.agents = records
        self._stage("commit", state, emit, lambda: self._commit(state, emit, result))
        result.reply = state.reply
        result.total_ms = (time.perf_counter() - start) * 1000
        emit(
            EventKind.TURN_COMPLETED,
            {
                "total_time_ms": round(result.total_ms),
                "response": state.reply or None,
                "stage_ms": {k: round(v, 1) for k, v in state.stage_ms.items()},
                "tokens": state.tokens,
                "flags": sorted(state.flags),
            },
        )

    def _scope(self, name: str) -> AbstractContextManager[None]:
        return self.relay.caller(name) if self.relay else nullcontext()

    def _stage(
        self,
        name: str,
        state: TurnState,
        emit: Callable[[EventKind, Mapping[str, Any]], None],
        body: Callable[[], object],
    ) -> None:
        emit(EventKind.TURN_STAGE_CHANGED, {"stage": name})
        t0 = time.perf_counter()
        try:
            body()
        except Exception as exc:  # a failing stage must not lose the turn
            state.flags.add(f"{name}_failed")
            emit(
                EventKind.ERROR,
                {
                    "error": f"{name}: {type(exc).__name__}: {exc}"[:1000],
                    "stage": name,
                    "traceback": traceback.format_exc()[-4000:],
                },
            )
        finally:
            state.stage_ms[name] = state.stage_ms.get(name, 0.0) + (time.perf_counter() - t0) * 1000

    # ── stages ─────────────────────────────────────────────────────────────
    def _sense(
        self, state: TurnState, emit: Callable[[EventKind, Mapping[str, Any]], None]
    ) -> None:
        screened = screen_turn(
            self.sensors,
            self.safety_check,
            state.user_text,
            state.history,
            self.session.risk,
            self._clock(),
            self._scope,
        )
        state.sensors, assessment = screened.readings, screened.assessment
        state.intent_reading = self.sensors.intent_reading(state.user_text, state.history)
        state.safety = assessment
        state.flags |= assessment.flags
        emit(
            EventKind.SENSORS_FAST_UPDATED,
            {
                "sensors": {n: round(o.probability, 4) for n, o in state.sensors.items()},
                "evidence": {n: o.evidence[:3] for n, o in state.sensors.items() if o.evidence},
                "notes": {n: o.notes for n, o in state.sensors.items() if o.notes},
                "risk": assessment.as_payload(),
                **({"intent": r.as_payload()} if (r := state.intent_reading) else {}),
            },
        )
        if state.sensor("prompt_injection") >= INJECTION_THRESHOLD:
            state.flags.add("prompt_injection")
        if assessment.protect:
            state.flags.add("safety_interrupt")
            careful = assessment.before.careful
            reason = "; ".join(assessment.reasons) or "safety_risk over threshold"
            emit(
                EventKind.SAFETY_INTERRUPT,
                {
                    "reason": f"{reason}: protective reply, no agents",
                    "sensor": "safety_risk",
                    "value": round(assessment.risk, 4),
                    "evidence": state.sensors["safety_risk"].evidence[:3]
                    if "safety_risk" in state.sensors
                    else [],
                    "careful": careful,
                    "situation": sorted(assessment.flags - {CAREFUL_FLAG}),
                    "level": round(assessment.after.level, 4),
                },
            )

    def _recall(
        self, state: TurnState, emit: Callable[[EventKind, Mapping[str, Any]], None]
    ) -> None:
        if self.memory is None or not state.user_text.strip():
            recall = Recall()
        else:
            # the knowledge bases the agents' manifests ask for (none: no such search)
            kbs = self.waves.registry.knowledge_bases()
            recall = self.memory.recall(state.user_text, knowledge_bases=kbs)
        state.recall = recall
        emit(
            EventKind.MEMORY_RETRIEVED,
            {
                "episodes": recall.episodes,
                "user_facts": recall.user_facts,
                "open_threads": recall.open_threads,
                "items": recall.items,
                "knowledge": recall.knowledge,
            },
        )

    def _agents(
        self,
        state: TurnState,
        contexts: list[str],
        emit: Callable[[EventKind, Mapping[str, Any]], None],
        records: list[AgentRecord],
        now: float,
    ) -> None:
        contexts.append(
            self.waves.run_waves(state, emit, records, self.session.last_run, now, self._scope)
        )
        self.waves.reduce(state, emit, now)

    def _commit(
        self,
        state: TurnState,
        emit: Callable[[EventKind, Mapping[str, Any]], None],
        result: TurnResult,
    ) -> None:
        plan, score, quarantined = plan_commit(state)
        result.importance = score
        took = (time.perf_counter() - state.started) * 1000
        whole = result.as_dict()
        plan = replace(
            plan,
            artefacts={key: whole[key] for key in ARTEFACTS},
            started_at=datetime.now(UTC) - timedelta(milliseconds=took),
            duration_ms=took,
        )
        emit(
            EventKind.MEMORY_CANDIDATES_PROPOSED,
            {
                "candidates": [c.model_dump(mode="json") for c in plan.candidates],
                "importance": score,
                "quarantined": quarantined,
            },
        )
        summary: dict[str, Any] = {"importance": score, "quarantined": quarantined}
        if self.memory is not None:
            summary.update(self.memory.commit(plan))
        result.memory_summary = summary
        emit(EventKind.MEMORY_COMMITTED, {"summary": summary})
