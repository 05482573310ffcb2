"""The append-only event log: ordering, uniqueness, replay, bad input, permissions."""

from __future__ import annotations

import json
import math
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.errors import EventPayloadError, UnknownEventKindError
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.store import EventDraft, EventLog
from tests.store._helpers import complete_turn, drafts


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return ensure_private_dir(tmp_path / "data") / "rilai.db"


def test_seq_is_assigned_per_turn_in_append_order(db: Path) -> None:
    with EventLog(db) as log:
        a = log.append("s1", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})
        b = log.append("s1", 1, "turn_stage_changed", {"stage": "ingest"})
        c = log.append("s1", 2, EventKind.TURN_STARTED, {"user_input": "yo", "turn_id": 2})
        d = log.append("s2", 1, EventKind.TURN_STARTED, {"user_input": "x", "turn_id": 1})
        batch = log.append_batch(drafts("s1", 1, 3))
    assert (a.seq, b.seq, c.seq, d.seq) == (0, 1, 0, 0)
    assert [e.seq for e in batch] == [2, 3, 4]


def test_uniqueness_is_enforced_by_the_schema(db: Path) -> None:
    with EventLog(db) as log:
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "a"})
        with pytest.raises(sqlite3.IntegrityError):
            log.connection.execute(
                "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind,"
                " payload) VALUES ('s', 1, 0, 0, '2026-01-01T00:00:00+00:00', 'error', '{}')"
            )


def test_two_logs_on_one_file_never_collide(db: Path) -> None:
    with EventLog(db) as one, EventLog(db) as two:
        for i in range(20):
            (one if i % 2 else two).append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": str(i)})
        seqs = [e.seq for e in one.replay_turn("s", 1)]
    assert seqs == list(range(20))


def test_replay_equals_what_was_appended(db: Path) -> None:
    with EventLog(db) as log:
        appended = log.append_batch(drafts("s", 1, 5) + drafts("s", 2, 3))
        appended.append(log.append("s", 1, EventKind.ERROR, {"error": "boom", "traceback": None}))
        replayed = log.replay_session("s")
        turn1 = log.replay_turn("s", 1)
    by_key = sorted(appended, key=lambda e: (e.turn_id, e.seq))
    assert replayed == by_key
    assert turn1 == [e for e in by_key if e.turn_id == 1]
    for event in replayed:  # the trusted fast path builds real, equal, validated-looking events
        assert EngineEvent.model_validate(event.model_dump()) == event
        assert event.ts_wall.tzinfo is not None


@settings(max_examples=30, deadline=None)
@given(
    payload=st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers(-(2**53), 2**53)
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=10,
        ),
        max_size=5,
    )
)
def test_any_json_payload_round_trips(
    tmp_path_factory: pytest.TempPathFactory, payload: dict
) -> None:
    db = ensure_private_dir(tmp_path_factory.mktemp("rt")) / "rilai.db"
    with EventLog(db) as log:
        written = log.append("s", 0, EventKind.TIMING_CHECKPOINT, payload)
        [read] = log.replay_turn("s", 0)
    assert read == written
    assert read.payload == json.loads(json.dumps(payload))


def test_queries(db: Path) -> None:
    with EventLog(db) as log:
        complete_turn(log, "a", 1, "hello", "hi there")
        complete_turn(log, "a", 2, "again", None)
        complete_turn(log, "b", 1, "new session", "welcome")
        assert log.session_ids() == ["a", "b"]
        assert log.latest_session_id() == "b"
        assert log.last_turn_id("a") == 2
        assert log.last_turn_id() == 2
        assert log.last_turn_id("nobody") == 0
        assert log.count() == 9
        assert log.count("a") == 6
        assert log.counts_by_kind()["turn_started"] == 3
        started = log.events(kind=EventKind.TURN_STARTED)
        assert [e.payload["user_input"] for e in started] == ["hello", "again", "new session"]
        newest = log.events(kind="turn_completed", limit=1, newest_first=True)
        assert newest[0].session_id == "b"
        assert len(log.events(session_id="a", turn_id=2)) == 3


def test_unknown_kind_writes_nothing(db: Path) -> None:
    with EventLog(db) as log:
        with pytest.raises(UnknownEventKindError) as info:
            log.append_batch([*drafts("s", 1, 2), EventDraft("s", 1, "no_such_kind", {})])
        assert info.value.code == "RIL-011"
        assert "turn_started" in " ".join(info.value.hints)
        assert log.count() == 0


@pytest.mark.parametrize(
    "payload",
    [{"obj": object()}, {"when": datetime.now(UTC)}, {"x": math.nan}, {"b": b"bytes"}],
)
def test_non_json_payload_writes_nothing(db: Path, payload: dict) -> None:
    with EventLog(db) as log:
        with pytest.raises(EventPayloadError) as info:
            log.append_batch(
                [*drafts("s", 1, 1), EventDraft("s", 1, EventKind.TIMING_CHECKPOINT, payload)]
            )
        assert "nothing was written" in info.value.message
        assert log.count() == 0


def test_payload_that_breaks_its_kind_contract_is_refused(db: Path) -> None:
    with EventLog(db) as log:
        with pytest.raises(EventPayloadError, match="prompt_tokens"):
            log.append(
                "s",
                1,
                EventKind.MODEL_CALL_COMPLETED,
                {"model": "m", "prompt_tokens": -1, "completion_tokens": 1, "latency_ms": 3},
            )
        with pytest.raises(EventPayloadError):
            log.append("", 1, EventKind.ERROR, {"error": "empty session id"})
        with pytest.raises(EventPayloadError):
            log.append("s", -1, EventKind.ERROR, {"error": "negative turn"})
        assert log.count() == 0


def test_files_are_owner_only(tmp_path: Path) -> None:
    data = ensure_private_dir(tmp_path / "fresh" / "data")
    with EventLog(data / "rilai.db") as log:
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "x"})
        mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
        assert mode(data) == 0o700
        assert mode(data / "rilai.db") == 0o600
        wal = data / "rilai.db-wal"
        if wal.exists():
            assert mode(wal) & 0o077 == 0


def test_wal_mode(db: Path) -> None:
    with EventLog(db) as log:
        assert log.connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert log.integrity_check() == "ok"


def test_delete_session_and_all(db: Path) -> None:
    with EventLog(db) as log:
        complete_turn(log, "a", 1, "x", "y")
        complete_turn(log, "b", 1, "x", "y")
        assert log.delete_session("a") == 3
        assert log.session_ids() == ["b"]
        assert log.delete_all() == 3
        assert log.count() == 0


def test_listeners_hear_committed_events_in_order_and_never_a_rollback(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "rilai.db")
    heard: list[str] = []
    remove = log.add_listener(lambda e: heard.append(e.kind.value))
    log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi"})
    with pytest.raises(RuntimeError), log.transaction():
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "sense"})
        assert heard == ["turn_started"]  # not yet: the transaction is open
        raise RuntimeError("the commit failed")
    assert heard == ["turn_started"]  # rolled back: never told
    with log.transaction():
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "sense"})
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "recall"})
    assert heard == ["turn_started", "turn_stage_changed", "turn_stage_changed"]
    remove()
    remove()  # twice is fine
    log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "voice"})
    assert len(heard) == 3
    log.close()
