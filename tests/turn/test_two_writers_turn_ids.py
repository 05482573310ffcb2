"""Two processes on one conversation never share a turn id (issue 30, proof 9).

The window and a `rilai chat` both go on with the latest conversation. The turn id used to
be read (last id + 1) before the turn's first event was written, outside any transaction:
a second writer starting its turn in between took the same id, and the two turns'
events were interleaved under it. The log now hands out the id in the same transaction
that writes TURN_STARTED. Here the other writer's whole turn runs at exactly that moment
(when the turn attaches its model-event relay), which is deterministic, with no patching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM, agent_answer
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.model_events import Emit, ModelEventRelay
from rilai_desktop.turn.runner import TurnRunner
from tests.turn.conftest import PROMPTS


class InterleavingRelay(ModelEventRelay):
    """A relay that, the first time a turn attaches it, lets another writer run a turn."""

    def __init__(self) -> None:
        super().__init__()
        self.other_turn: Callable[[], object] | None = None

    @contextmanager
    def attached(self, emit: Emit) -> Iterator[None]:
        other, self.other_turn = self.other_turn, None
        if other is not None:
            other()
        with super().attached(emit):
            yield


def _runner(log: EventLog, relay: ModelEventRelay | None = None) -> TurnRunner:
    voice = ScriptedLLM(default="I hear you.")
    models = RoleModels(
        voice,
        {
            "agents": ScriptedLLM(default=agent_answer()),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
            "voice": voice,
        },
    )
    return build_turn_runner(
        events=log, models=models, memory=InMemoryTurnMemory(), prompts=PROMPTS,
        relay=relay, use_judge=False,
    )  # fmt: skip


def test_a_second_writer_never_takes_the_same_turn_id(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    with EventLog(db) as first_log, EventLog(db) as second_log:
        seed = _runner(first_log)
        seed.run_turn("hello there")
        relay = InterleavingRelay()
        first = _runner(first_log, relay)
        second = _runner(second_log)
        assert first.session_id == second.session_id == seed.session_id
        relay.other_turn = lambda: second.run_turn("the other window speaks")
        mine = first.run_turn("and this window speaks")
        theirs = second.last_result
        assert theirs is not None
        assert mine.turn_id != theirs.turn_id
        for turn_id in (mine.turn_id, theirs.turn_id):
            events = first_log.replay_turn(first.session_id, turn_id)
            kinds = [e.kind for e in events]
            assert kinds.count(EventKind.TURN_STARTED) == 1
            assert kinds[0] is EventKind.TURN_STARTED
            assert kinds[-1] is EventKind.TURN_COMPLETED
            assert kinds.count(EventKind.TURN_COMPLETED) == 1
            assert [e.seq for e in events] == list(range(len(events)))
