"""The Engine with fakes: ScriptedLLMs for every role, the real event log and memory (the
hashed embedder, FAISS) in a temporary RILAI_HOME, the daemon driven by hand."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from rilai_desktop.app.engine import Engine, TurnCancelled
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.errors import EngineClosedError
from rilai_desktop.turn.state import VoiceDelta
from tests.fake_engine import VOICE_REPLY


def _kinds(updates: list[Any]) -> list[EventKind]:
    return [u.kind for u in updates if isinstance(u, EngineEvent)]


def test_send_streams_the_turn_in_order(engine: Engine) -> None:
    handle = engine.send("Hi, long day at work.")
    updates = list(handle.updates(timeout=60))
    result = handle.result(timeout=60)
    kinds = _kinds(updates)
    assert kinds[0] is EventKind.TURN_STARTED and kinds[-1] is EventKind.TURN_COMPLETED
    events = [u for u in updates if isinstance(u, EngineEvent)]
    assert [e.seq for e in events] == sorted(e.seq for e in events)  # in log order
    assert all(e.turn_id == result.turn_id == 1 for e in events)
    stages = [e.payload["stage"] for e in events if e.kind is EventKind.TURN_STAGE_CHANGED]
    assert stages == [
        "ingest",
        "sense",
        "recall",
        "agents",
        "deliberate",
        "council",
        "voice",
        "commit",
    ]
    pieces = "".join(u.text for u in updates if isinstance(u, VoiceDelta) and not u.reset)
    assert pieces == result.reply == VOICE_REPLY
    # every streamed event is the logged one; memory logs its own writes in the turn too
    # (they reach subscribers through the bus, not the turn's stream)
    logged = engine.parts.core.event_log.replay_turn(engine.session_id, 1)
    streamed = {e.seq for e in events}
    assert streamed <= {e.seq for e in logged}
    assert all(e.kind.value.startswith("memory.") for e in logged if e.seq not in streamed)
    assert handle.done() and not handle.cancelled


def test_on_update_sees_what_the_stream_sees(engine: Engine) -> None:
    seen: list[Any] = []
    handle = engine.send("Hello.", seen.append)
    streamed = list(handle.updates(timeout=60))
    assert seen == streamed


def test_cancel_ends_the_turn_cleanly_and_logs_it(engine: Engine) -> None:
    box: dict[str, Any] = {}

    def cancel_at_agents(update: Any) -> None:
        if isinstance(update, EngineEvent) and update.payload.get("stage") == "agents":
            box["handle"].cancel()

    box["handle"] = handle = engine.send("Tell me something.", cancel_at_agents)
    kinds = _kinds(list(handle.updates(timeout=60)))
    with pytest.raises(TurnCancelled):
        handle.result(timeout=60)
    assert handle.cancelled
    assert kinds[-1] is EventKind.TURN_ABORTED and EventKind.TURN_COMPLETED not in kinds
    assert EventKind.COUNCIL_DECISION_MADE not in kinds  # stopped before the council
    logged = engine.parts.core.event_log.replay_turn(engine.session_id, 1)
    aborted = logged[-1]
    assert aborted.kind is EventKind.TURN_ABORTED
    assert aborted.payload["reason"] == "cancelled" and aborted.payload["stage"] == "agents"
    assert engine.parts.core.event_log.open_turns() == []  # nothing left half-open
    # the engine goes on: the next turn is turn 2 and answers
    assert engine.send("Still there?").result(timeout=60).reply == VOICE_REPLY
    assert engine.last_result is not None and engine.last_result.turn_id == 2
    history = [m["content"] for m in engine.session.history if m["role"] == "user"]
    assert history == ["Tell me something.", "Still there?"]


def test_a_turn_cancelled_while_queued_never_starts(engine: Engine) -> None:
    gate = threading.Event()
    first = engine.send("First.", lambda _u: gate.wait(30))
    second = engine.send("Second.")
    second.cancel()
    gate.set()
    assert first.result(timeout=60).reply == VOICE_REPLY
    with pytest.raises(TurnCancelled):
        second.result(timeout=60)
    started = engine.parts.core.event_log.events(kind=EventKind.TURN_STARTED)
    assert [e.payload["user_input"] for e in started] == ["First."]


def test_subscribe_receives_turn_daemon_and_memory_events(engine: Engine) -> None:
    received: list[EngineEvent] = []
    unsubscribe = engine.subscribe(received.append)
    engine.send("I just moved to Lisbon.").result(timeout=60)
    clock = FakeClock(datetime(2026, 11, 25, 12, 0, tzinfo=UTC))
    daemon = engine.start_daemon(RecordingDelivery(), clock=clock, schedule=False)
    daemon.tick()
    item = engine.memory.remember("My sister is called Ines.")
    kinds = {e.kind for e in received}
    assert {EventKind.TURN_STARTED, EventKind.TURN_COMPLETED, EventKind.DAEMON_TICK} <= kinds
    assert EventKind.MEMORY_ITEMS_EXTRACTED in kinds
    assert engine.memory.item(item.item_id) is not None
    # in log order, each once
    keys = [(e.session_id, e.turn_id, e.seq) for e in received]
    assert len(keys) == len(set(keys))
    unsubscribe()
    before = len(received)
    engine.memory.forget(item.item_id)
    assert len(received) == before


def test_a_failing_subscriber_breaks_nothing(engine: Engine) -> None:
    def broken(_event: EngineEvent) -> None:
        raise RuntimeError("a client bug")

    received: list[EngineEvent] = []
    engine.subscribe(broken)
    engine.subscribe(received.append)
    assert engine.send("Hello.").result(timeout=60).reply == VOICE_REPLY
    assert received and received[-1].kind is EventKind.TURN_COMPLETED


def test_writes_wait_for_the_turn_on_the_one_worker(engine: Engine) -> None:
    order: list[str] = []
    gate = threading.Event()
    engine.subscribe(lambda e: order.append(e.kind.value))
    handle = engine.send("A message.", lambda _u: gate.wait(30))
    done = threading.Event()

    def edit() -> None:
        engine.memory.remember("I like green tea.")
        done.set()

    threading.Thread(target=edit).start()
    assert not done.wait(0.3)  # queued behind the running turn
    gate.set()
    handle.result(timeout=60)
    assert done.wait(60)
    assert order.index("turn_completed") < order.index(
        "memory.items_extracted", order.index("turn_completed")
    )


def test_reset_starts_a_new_conversation(engine: Engine) -> None:
    engine.send("Hello.").result(timeout=60)
    old = engine.session_id
    new = engine.reset()
    assert new == engine.session_id != old
    assert engine.session.history == []
    ended = engine.parts.core.event_log.events(kind=EventKind.SESSION_ENDED)
    assert [e.session_id for e in ended] == [old]
    assert engine.send("Hi again.").result(timeout=60).turn_id == 1


def test_close_leaves_no_thread_running(engine: Engine) -> None:
    before = {t.ident for t in threading.enumerate()}
    engine.send("Hello.").result(timeout=60)
    engine.start_daemon(RecordingDelivery(), schedule=True)
    engine.close()
    engine.close()  # idempotent
    left = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    assert left == [], left
    with pytest.raises(EngineClosedError):
        engine.send("Anyone?")
    assert engine.parts.models.closed  # type: ignore[attr-defined]


def test_a_turn_leaves_its_journal_entry_and_context_record(engine: Engine) -> None:
    result = engine.send("I just started learning the cello.").result(timeout=60)
    memory = engine.parts.memory
    assert memory is not None
    context_id = result.memory_summary["context_id"]
    item = memory.contexts.get(context_id)
    assert item is not None and item.type == "turn.artefacts" and item.agent_id == "rilai"
    assert item.metadata == {"session_id": engine.session_id, "turn_id": 1}
    assert item.expires_at is not None  # artefacts are kept for a while, not forever
    assert {"agents", "council", "sensors", "memory"} <= set(item.content)
    assert item.content["agents"] and item.content["council"]["intent"]
    day = memory.journal.read_daily("rilai", datetime.now(UTC).date())
    assert day is not None
    (session,) = day.sessions
    assert session.id == engine.session_id
    assert [(t.type, t.output_context_id, t.status) for t in session.tasks] == [
        ("turn", context_id, "success")
    ]
    engine.send("It is harder than I thought.").result(timeout=60)
    day = memory.journal.read_daily("rilai", datetime.now(UTC).date())
    assert day is not None and len(day.sessions[0].tasks) == 2  # one session, two turns


def test_a_consolidated_page_is_promoted_to_long_term(engine: Engine) -> None:
    memory = engine.parts.memory
    assert memory is not None
    memory.create_category("hobbies", "What they do for fun")
    memory.remember("I play the cello on Sundays.", "hobbies")
    memory.consolidate_category("hobbies", force=True, use_model=False)
    assert memory.promote_category("hobbies")
    assert not memory.promote_category("hobbies")  # once
    long_term = memory.journal.read_long_term("rilai")
    assert "Promoted: hobbies:" in long_term and "cello" in long_term


def test_the_memory_facade_browses_what_a_turn_kept(engine: Engine) -> None:
    engine.send("My sister is called Ines.").result(timeout=60)
    item = engine.memory.remember("I like green tea.", "preferences")
    rows = engine.memory.browse.items()
    assert item.item_id in {r.item_id for r in rows}
    assert any("Ines" in r.content for r in rows)  # extracted from the turn
    assert engine.memory.browse.count_items() == len(rows)
    engine.memory.forget(item.item_id)
    assert item.item_id not in {r.item_id for r in engine.memory.browse.items()}


def test_the_daemons_ticks_run_on_the_engines_worker(engine: Engine) -> None:
    from rilai_desktop.daemon.jobs import tick_job

    threads: list[str] = []
    engine.subscribe(
        lambda e: (
            threads.append(threading.current_thread().name)
            if e.kind is EventKind.DAEMON_TICK
            else None
        )
    )
    engine.start_daemon(RecordingDelivery(), schedule=True)
    threads.clear()  # the first tick at start may already have run
    scheduler = engine._scheduler
    assert scheduler is not None
    tick_job(scheduler.key)  # what APScheduler calls on its own thread
    assert threads and set(threads) == {"rilai-engine"}  # with the turns, not beside them


def test_on_done_is_told_once_the_turn_has_ended(engine: Engine) -> None:
    ended: list[tuple[bool, bool]] = []
    done = threading.Event()

    def on_done(handle: Any) -> None:
        ended.append((handle.done(), handle.cancelled))
        done.set()

    engine.send("Hello.", on_done=on_done)
    assert done.wait(60)
    assert ended == [(True, False)]
