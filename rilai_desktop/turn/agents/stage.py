"""Stages 3–5: agents in waves, the reducer, deliberation with follow-ups.

Wave 0 is the always-on agents; wave 1 is what the scheduler picks from the sensors,
modulators, agency values, cooldowns and the turn's token budget. Every agent of a turn
reads the same context text (its KV prefix is evaluated once, see ``agents/context.py``),
built once the waves are planned so that it says what the planned agents declare as
inputs and nothing more. Follow-ups go only to the authors of contested claims
(``deliberation.deliberate``).

An agent that declares ``active_claims`` reads the claims so far in its own message: in
wave 1+ it waits for the earlier waves (it is handed to the pool after its wave's other
agents, so it rarely waits long), in a follow-up it reads the turn's claims.

A wave's agents run on a pool of runners, one per llama.cpp context of the agents' model
(``llm.agent_workers``, default 2: one per core, each context on ``llm.threads`` threads).
Two single-threaded contexts keep both cores busy; two threads on one context gained only
~28 % for a tiny model (docs/turn.md has the measured stage times). Events stay live:
each agent emits its own started / model call / completed as they happen (the relay's
caller is per thread), and the outputs join the state in plan order, so the reducer sees
the same order whatever finishes first.

Waves overlap on the pool: every wave is planned before the first agent runs (nothing an
agent of this turn returns changes the scheduler's inputs), and a free runner takes the
next agent at once, so wave 1's first agent runs beside wave 0's last instead of leaving a
core idle (wave 0 has five agents). WAVE_STARTED/COMPLETED still bracket each wave's agents.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from rilai_desktop.contracts import Claim, EventKind, GlobalModulators, StanceVector
from rilai_desktop.contracts.llm import Prefills
from rilai_desktop.turn.agents.context import (
    declared_inputs,
    lead_context,
    turn_context,
    warm_messages,
)
from rilai_desktop.turn.agents.loader import AgentRegistry
from rilai_desktop.turn.agents.reading import READER_ID, Reader
from rilai_desktop.turn.agents.runner import AgentRun, AgentRunner
from rilai_desktop.turn.agents.selection import ScheduledAgent, Scheduler
from rilai_desktop.turn.deliberation.reducer import reduce
from rilai_desktop.turn.deliberation.rounds import deliberate
from rilai_desktop.turn.result import AgentRecord
from rilai_desktop.turn.state import Emit, RoundResult, TurnState

CallerScope = Callable[[str], AbstractContextManager[None]]  # ModelEventRelay.caller


@dataclass
class WaveStage:
    registry: AgentRegistry
    scheduler: Scheduler
    runner: AgentRunner
    waves: int = 2
    # more runners for the same role, each on its own model instance (parallel agents)
    extra_runners: tuple[AgentRunner, ...] = ()
    enabled: bool = True  # agents.enabled: off, no wave runs (the turn without its agents)
    reader: Reader | None = None  # agents.readings: the grounded reading (agents/reading.py)

    def run_waves(
        self,
        state: TurnState,
        emit: Emit,
        records: list[AgentRecord],
        last_run: dict[str, float],
        now: float,
        scope: CallerScope,
    ) -> str:
        """Plan the waves, build the shared context for the planned agents, run them; the
        context (deliberation's follow-ups reuse it, and so its KV cache)."""
        plans = self.plan_waves(state, last_run, now)
        context = self.context(state, plans)
        runs = self._run_plans(plans, context, emit, scope, state)
        for wave, plan in enumerate(plans):
            for item, run in zip(plan, runs[wave], strict=True):
                state.outputs.append(run.output)
                state.add_tokens(
                    "agents", run.prompt_tokens, run.cached_tokens, run.completion_tokens
                )
                last_run[item.agent_id] = now
                records.append(_record(item, wave, run))
        if self.enabled and self.reader is not None:
            with scope(READER_ID):
                readings = self.reader.read(state, emit)
            state.readings = [r.text for r in readings.facts]
            state.not_wanted = readings.not_wanted
        return context

    def inputs_of(self, plans: Sequence[Sequence[ScheduledAgent]]) -> frozenset[str]:
        """The inputs the planned agents declare, together."""
        return declared_inputs([self.registry.get(p.agent_id) for plan in plans for p in plan])

    def context(self, state: TurnState, plans: Sequence[Sequence[ScheduledAgent]]) -> str:
        """The shared context the planned agents read (``agents/context.py``)."""
        return turn_context(state, self.inputs_of(plans))

    def lead(
        self,
        history: Sequence[Mapping[str, Any]],
        stance: StanceVector,
        modulators: GlobalModulators,
    ) -> str:
        """The next turn's context lead, for ``warm``: what wave 0 (always planned) reads."""
        wanted = self.inputs_of([self.scheduler.wave0()])
        return lead_context(history, stance, modulators if "modulators" in wanted else None)

    def plan_waves(
        self, state: TurnState, last_run: Mapping[str, float], now: float
    ) -> list[list[ScheduledAgent]]:
        """Every wave's plan, made before the first agent runs.

        The scheduler scores wave 1+ from the sensors, modulators, agency values, cooldowns
        and the budget left, none of which an agent of this turn changes (the reducer runs
        after the waves), so planning up front gives the same plans as planning between
        waves, and lets the pool start wave 1 while wave 0's last agent still runs.
        """
        plans: list[list[ScheduledAgent]] = []
        if not self.enabled:
            return plans
        ran: set[str] = set()
        budget = self.scheduler.settings.token_budget
        for wave in range(max(1, self.waves)):
            if wave == 0:
                plan = self.scheduler.wave0()
            else:
                plan = self.scheduler.plan_wave(
                    wave,
                    user_text=state.user_text,
                    sensors={n: o.probability for n, o in state.sensors.items()},
                    modulators=state.modulators.to_dict(),
                    last_run=last_run,
                    now=now,
                    ran=ran,
                    budget_left=budget,
                )
            if not plan:
                break
            plans.append(plan)
            for item in plan:
                ran.add(item.agent_id)
                if wave > 0:
                    budget -= self.registry.get(item.agent_id).manifest.cost_estimate
        return plans

    def _run_plans(
        self,
        plans: Sequence[Sequence[ScheduledAgent]],
        context: str,
        emit: Emit,
        scope: CallerScope,
        state: TurnState | None = None,
    ) -> list[list[AgentRun]]:
        """Every planned agent's run, wave by wave in plan order, on the runner pool.

        Agents are handed to the pool in wave order, and a free runner takes the next one
        at once: wave 1's first agent starts on the core that wave 0's last agent leaves
        idle, instead of waiting for the whole of wave 0. WAVE_STARTED is emitted just
        before a wave's first agent starts, WAVE_COMPLETED when its last one has finished
        (so with two runners, wave 1 may start before wave 0 completes).
        """
        pool = [self.runner, *self.extra_runners]
        free: queue.SimpleQueue[AgentRunner] = queue.SimpleQueue()
        for runner in pool:
            free.put(runner)
        lock = threading.Lock()
        started: set[int] = set()
        left = [len(plan) for plan in plans]
        runs: list[list[AgentRun | None]] = [[None] * len(plan) for plan in plans]
        user_text = state.user_text if state is not None else None
        said = rilai_said(state)
        sensors = {n: o.probability for n, o in state.sensors.items()} if state else None
        waves_done = threading.Condition(lock)
        broken: list[BaseException] = []  # a run that raised (a cancelled turn) ends waits

        def reads_claims(item: ScheduledAgent) -> bool:
            return "active_claims" in self.registry.get(item.agent_id).manifest.inputs

        def claims_before(wave: int) -> list[Claim]:
            """The claims of the waves before ``wave``, in plan order, once they finished
            (the earlier waves' jobs are all handed out before this one: no deadlock)."""
            with waves_done:
                waves_done.wait_for(lambda: bool(broken) or all(n == 0 for n in left[:wave]))
                if broken:
                    raise broken[0]
                return [
                    claim
                    for wave_runs in runs[:wave]
                    for run in wave_runs
                    if run is not None
                    for claim in run.output.claims
                ]

        def one(job: tuple[int, int]) -> None:
            try:
                run_one(job)
            except BaseException as exc:
                with lock:
                    broken.append(exc)
                    waves_done.notify_all()
                raise

        def run_one(job: tuple[int, int]) -> None:
            wave, index = job
            item = plans[wave][index]
            claims = claims_before(wave) if wave > 0 and reads_claims(item) else []
            runner = free.get()
            try:
                with lock:
                    if wave not in started:
                        started.add(wave)
                        emit(
                            EventKind.WAVE_STARTED,
                            {
                                "wave": wave,
                                "agents": [p.agent_id for p in plans[wave]],
                                "scores": {p.agent_id: round(p.score, 3) for p in plans[wave]},
                            },
                        )
                spec = self.registry.get(item.agent_id)
                with scope(f"agent:{spec.id}"):
                    run = runner.run(
                        spec,
                        context,
                        emit,
                        wave=wave,
                        why=item.reasons,
                        user_text=user_text,
                        rilai_said=said,
                        sensors=sensors,
                        claims=claims,
                    )
            finally:
                free.put(runner)
            with lock:
                runs[wave][index] = run
                left[wave] -= 1
                waves_done.notify_all()
                if left[wave] == 0:
                    emit(
                        EventKind.WAVE_COMPLETED,
                        {
                            "wave": wave,
                            "ran": [p.agent_id for p in plans[wave]],
                            "failed": [
                                p.agent_id
                                for p, r in zip(plans[wave], runs[wave], strict=True)
                                if r is not None and r.failed
                            ],
                        },
                    )

        # within a wave, the agents that read the claims so far go last (they may wait)
        jobs = [
            (wave, index)
            for wave, plan in enumerate(plans)
            for _, index in sorted((reads_claims(item), i) for i, item in enumerate(plan))
        ]
        workers = min(len(pool), len(jobs))
        if workers <= 1:
            for job in jobs:
                one(job)
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="rilai-agent") as executor:
                list(executor.map(one, jobs))
        return [[r for r in wave_runs if r is not None] for wave_runs in runs]

    def warm(self, lead: str) -> int:
        """Evaluate the next turn's shared agent prompt start (static instructions + the
        lead of the context) on every agent context at once; the tokens evaluated."""
        pool = [self.runner, *self.extra_runners]
        unique = list({id(r.model): r.model for r in pool}.values())
        models = [m for m in unique if isinstance(m, Prefills)]
        if not models or not self.enabled:
            return 0
        messages = warm_messages(self.runner.system_text, lead)
        if len(models) == 1:
            return models[0].prefill(messages)
        with ThreadPoolExecutor(len(models), thread_name_prefix="rilai-warm") as executor:
            return sum(executor.map(lambda m: m.prefill(messages), models))

    def reduce(self, state: TurnState, emit: Emit, now: float) -> None:
        before = state.stance.to_dict()
        state.stance_before_agents = state.stance
        state.modulators_before_agents = state.modulators
        result = reduce(
            state.stance, state.modulators, state.outputs, turn_id=state.turn_id, now_ts=now
        )
        state.stance = result.stance
        state.modulators = result.modulators
        state.claims = list(result.claims)
        emit(
            EventKind.STANCE_UPDATED,
            {
                "delta": result.applied_delta,
                "current": state.stance.to_dict(),
                "previous": before,
            },
        )
        emit(
            EventKind.MODULATORS_UPDATED,
            {
                "changes": result.modulator_changes,
                "current": state.modulators.to_dict(),
                "source_agents": dict(state.modulators.source_agents),
            },
        )

    def deliberate(
        self,
        state: TurnState,
        context: str,
        emit: Emit,
        records: list[AgentRecord],
        scope: CallerScope,
    ) -> None:
        current_round = [0]

        def started(r: int) -> None:
            current_round[0] = r
            emit(EventKind.DELIB_ROUND_STARTED, {"round": r})

        def follow_up(
            agent_id: str, mine: list[Claim], opposing: list[Claim]
        ) -> list[Claim] | None:
            if agent_id not in self.registry:
                return None
            spec = self.registry.get(agent_id)
            theirs = opposing[0].text if opposing else "another view"
            prompt = (
                f'Follow-up: your answer "{mine[0].text if mine else ""}" is opposed by'
                f' "{theirs}". Answer again; present no withdraws it.'
            )
            with scope(f"agent:{spec.id}"):
                run = self.runner.run(
                    spec,
                    context,
                    emit,
                    wave=current_round[0],
                    followup=prompt,
                    user_text=state.user_text,
                    rilai_said=rilai_said(state),
                    sensors={n: o.probability for n, o in state.sensors.items()},
                    claims=state.claims,
                )
            state.add_tokens(
                "deliberation", run.prompt_tokens, run.cached_tokens, run.completion_tokens
            )
            item = ScheduledAgent(agent_id, 0.0, (f"follow-up in round {current_round[0]}",))
            records.append(_record(item, current_round[0], run, followup=True))
            if run.failed:
                return None
            return list(run.output.claims)

        def finished(result: RoundResult) -> None:
            emit(
                EventKind.DELIB_ROUND_COMPLETED,
                {
                    "round": result.round,
                    "consensus": result.consensus,
                    "active_claims": result.active_claims,
                    "contested": result.contested,
                    "followups": result.followups,
                    "exit_reason": result.exit_reason,
                },
            )
            emit(
                EventKind.CONSENSUS_UPDATED,
                {"level": result.consensus, "by_type": result.by_type},
            )

        claims, rounds = deliberate(
            state.claims, follow_up, on_round_start=started, on_round=finished
        )
        state.claims = list(claims)
        state.rounds = list(rounds)
        state.consensus = rounds[-1].consensus if rounds else 1.0


def _record(
    item: ScheduledAgent, wave: int, run: AgentRun, *, followup: bool = False
) -> AgentRecord:
    out = run.output
    return AgentRecord(
        agent_id=item.agent_id,
        wave=wave,
        score=item.score,
        why=item.reasons,
        failed=run.failed,
        error=run.error,
        ms=run.ms,
        output={
            "observation": out.observation,
            "urgency": out.urgency,
            "confidence": out.confidence,
            "salience": out.salience,
            "claims": [{"type": c.type.value, "text": c.text} for c in out.claims],
            "stance_delta": out.stance_delta,
            "memory_candidates": [m.content for m in out.memory_candidates or []],
            "label": out.label,
            "present": out.present,
            "span": out.span,
        },
        followup=followup,
    )


def rilai_said(state: TurnState | None, last: int = 3) -> list[str]:
    """Rilai's last few replies: an agent span that copies one of them is a failure."""
    if state is None:
        return []
    replies = [
        str(m.get("content", ""))
        for m in state.history
        if isinstance(m, Mapping) and m.get("role") == "assistant"
    ]
    return replies[-last:]
