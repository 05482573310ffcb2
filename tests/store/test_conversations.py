"""Past conversations and message search: the FTS5 projection (migration 0005) kept in step
with the log by triggers, backfilled from an older database, and safe for any query."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventLog, migrate
from rilai_desktop.store.conversations import MARK, Conversations, fts_query
from rilai_desktop.store.schema import available_migrations
from tests.store._helpers import complete_turn

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    with EventLog(tmp_path / "rilai.db") as opened:
        yield opened


def _turn(log: EventLog, session: str, turn: int, text: str, reply: str | None, at: int) -> None:
    """A completed turn at ``T0 + at`` minutes."""
    when = T0 + timedelta(minutes=at)
    log.append(
        session, turn, EventKind.TURN_STARTED, {"user_input": text, "turn_id": turn}, ts_wall=when
    )
    log.append(
        session,
        turn,
        EventKind.TURN_COMPLETED,
        {"total_time_ms": 5, "response": reply},
        ts_wall=when + timedelta(seconds=30),
    )


def _nudge(log: EventLog, session: str, level: int, delivered: bool, text: str) -> None:
    payload = {
        "reason": "quiet evening",
        "suggestion": text,
        "level": level,
        "context": {"delivered": delivered},
    }
    log.append(session, 0, EventKind.PROACTIVE_NUDGE, payload)


def test_triggers_index_what_the_conversation_shows(log: EventLog) -> None:
    found = Conversations(log)
    log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "my violin lesson", "turn_id": 1})
    assert found.search("violin") == []  # the turn has not completed: not yet in the talk
    log.append("s", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 5, "response": "Bravo!"})
    hits = found.search("violin")
    assert [(h.session_id, h.turn_id, h.role) for h in hits] == [("s", 1, "user")]
    assert hits[0].snippet == f"my {MARK[0]}violin{MARK[1]} lesson"
    assert [h.role for h in found.search("bravo")] == ["assistant"]

    log.append("s", 2, EventKind.TURN_STARTED, {"user_input": "cancelled cello", "turn_id": 2})
    log.append("s", 2, EventKind.TURN_ABORTED, {"reason": "cancelled", "last_seq": 0})
    assert found.search("cello") == []  # restore leaves an aborted turn out, and so do we

    _nudge(log, "s", 3, True, "How did the recital go?")
    _nudge(log, "s", 3, False, "Undelivered recital question")
    _nudge(log, "s", 2, True, "Logged-only recital note")
    assert [(h.role, h.turn_id) for h in found.search("recital")] == [("nudge", 0)]
    assert [m.role for m in found.messages("s")] == ["user", "assistant", "nudge"]
    assert [m.text for m in found.messages("s")][:2] == ["my violin lesson", "Bravo!"]


def test_a_quiet_turn_indexes_only_the_persons_words(log: EventLog) -> None:
    complete_turn(log, "s", 1, "nothing to add", None)
    complete_turn(log, "s", 2, "still nothing", "")
    assert [m.role for m in Conversations(log).messages("s")] == ["user", "user"]


def test_conversations_newest_first_with_title_and_preview(log: EventLog) -> None:
    long_first = "A very long first message " + "that keeps going " * 10
    _turn(log, "old", 1, long_first, "First reply.", at=0)
    _turn(log, "old", 2, "second", "Old last reply.", at=5)
    _turn(log, "new", 1, "Hello\nthere", "New reply.", at=60)
    log.append("empty", 0, EventKind.SESSION_STARTED, {"session_id": "empty"})
    log.append("aborted", 1, EventKind.TURN_STARTED, {"user_input": "x", "turn_id": 1})
    log.append("aborted", 1, EventKind.TURN_ABORTED, {"reason": "cancelled", "last_seq": 0})

    listed = Conversations(log).recent()
    assert [c.session_id for c in listed] == ["new", "old"]  # no turns: left out
    new, old = listed
    assert new.title == "Hello there" and new.preview == "New reply." and new.turns == 1
    assert old.turns == 2 and old.preview == "Old last reply."
    assert len(old.title) == 60 and old.title.endswith("…")
    assert old.started == T0 and old.last_active == T0 + timedelta(minutes=5, seconds=30)
    assert Conversations(log).recent(limit=1) == [new]


def test_search_ranks_folds_accents_and_matches_prefixes(log: EventLog) -> None:
    _turn(log, "a", 1, "We met at the café with Zoë", "Lovely.", at=0)
    _turn(log, "b", 1, "Running late, running out of time", "Take a breath.", at=1)
    found = Conversations(log)
    assert [h.session_id for h in found.search("cafe zoe")] == ["a"]
    assert [h.session_id for h in found.search("CAFÉ")] == ["a"]
    assert [h.session_id for h in found.search("runn")] == ["b"]  # type-ahead: a prefix
    assert found.search("cafe running") == []  # every word must match
    assert found.search("") == [] and found.search("   \n") == []
    _turn(log, "c", 1, "running", "ok", at=2)
    ranked = found.search("running")
    assert {h.session_id for h in ranked} == {"b", "c"}
    assert ranked == sorted(ranked, key=lambda h: h.rank)
    assert len(found.search("running", limit=1)) == 1


@pytest.mark.parametrize(
    "query",
    ['"', '""', "AND", "OR", "NOT", "*", "NEAR(", "NEAR(a b", "(", ")", "^", "-", ":",
     "text:x", "a OR", '"unterminated', "\x00", "caf\x00e", "\ud800", "😀", "🙂 café",
     "日本語", "Ελληνικά", "' OR 1=1 --", "{text}: a", "+", "a*b*"],
)  # fmt: skip
def test_a_hostile_query_never_raises(log: EventLog, query: str) -> None:
    _turn(log, "s", 1, "Plain words: café, 日本語 and 🙂", "AND OR NOT NEAR", at=0)
    hits = Conversations(log).search(query)
    assert all(h.session_id == "s" for h in hits)


def test_operators_are_searched_as_words(log: EventLog) -> None:
    _turn(log, "s", 1, "Plain words", "AND OR NOT NEAR", at=0)
    assert [h.role for h in Conversations(log).search("NEAR")] == ["assistant"]
    assert fts_query('say "hi"') == '"say"* """hi"""*'


def test_delete_session_and_delete_all_take_their_messages_along(log: EventLog) -> None:
    _turn(log, "a", 1, "apples", "Crisp.", at=0)
    _turn(log, "b", 1, "apricots", "Sweet.", at=1)
    found = Conversations(log)
    log.delete_session("a")
    assert [h.session_id for h in found.search("ap")] == ["b"]
    assert found.messages("a") == [] and [c.session_id for c in found.recent()] == ["b"]
    log.delete_all()
    assert found.search("ap") == [] and found.recent() == []
    rows = log.connection.execute("SELECT COUNT(*) FROM message_search").fetchone()[0]
    assert rows == 0


def test_the_migration_backfills_an_existing_log(tmp_path: Path) -> None:
    db = tmp_path / "rilai.db"
    conn = sqlite3.connect(db, isolation_level=None)
    search = next(m for m in available_migrations() if m.name == "message_search")
    migrate(conn, target=search.version - 1)
    rows = [
        ("old", 1, 0, "turn_started", '{"user_input": "the old garden", "turn_id": 1}'),
        ("old", 1, 1, "turn_completed", '{"total_time_ms": 5, "response": "Roses?"}'),
        ("old", 2, 0, "turn_started", '{"user_input": "garden aborted", "turn_id": 2}'),
        ("old", 2, 1, "turn_aborted", '{"reason": "cancelled", "last_seq": 0}'),
        ("old", 0, 0, "proactive_nudge",
         '{"reason": "r", "suggestion": "Water the garden?", "level": 3,'
         ' "context": {"delivered": true}}'),
    ]  # fmt: skip
    for n, (sid, turn, seq, kind, payload) in enumerate(rows):
        conn.execute(
            "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sid, turn, seq, float(n), (T0 + timedelta(seconds=n)).isoformat(), kind, payload),
        )
    conn.close()
    with EventLog(db) as log:
        found = Conversations(log)
        assert {(h.role, h.turn_id) for h in found.search("garden")} == {("user", 1), ("nudge", 0)}
        assert [m.text for m in found.messages("old")] == [
            "the old garden",
            "Roses?",
            "Water the garden?",
        ]
        assert [c.title for c in found.recent()] == ["the old garden"]
        _turn(log, "old", 3, "a new garden turn", "Grows.", at=10)  # the triggers go on
        assert len(found.search("garden")) == 3


def test_exists_knows_the_logs_sessions(log: EventLog) -> None:
    log.append("s", 0, EventKind.SESSION_STARTED, {"session_id": "s"})
    assert Conversations(log).exists("s") and not Conversations(log).exists("nope")


def test_a_hit_names_the_message_it_found(log: EventLog) -> None:
    _turn(log, "s", 1, "first words", "a reply", at=0)
    _turn(log, "s", 2, "second words", "another reply", at=1)
    found = Conversations(log)
    (hit,) = found.search("second")
    shown = {m.message_id: m for m in found.messages("s")}
    assert shown[hit.message_id].text == "second words" and shown[hit.message_id].turn_id == 2


def test_a_turn_taken_back_before_migration_0006_leaves_the_index(tmp_path: Path) -> None:
    db = tmp_path / "rilai.db"
    conn = sqlite3.connect(db, isolation_level=None)
    retract = next(m for m in available_migrations() if m.name == "retracted_turns")
    migrate(conn, target=retract.version - 1)
    rows = [
        ("s", 1, 0, "turn_started", '{"user_input": "tomato garden", "turn_id": 1}'),
        ("s", 1, 1, "turn_completed", '{"total_time_ms": 5, "response": "Tomatoes!"}'),
        ("s", 0, 0, "turn_retracted", '{"turn_id": 1, "reason": "edit"}'),
        ("s", 2, 0, "turn_started", '{"user_input": "pepper garden", "turn_id": 2}'),
        ("s", 2, 1, "turn_completed", '{"total_time_ms": 5, "response": "Peppers!"}'),
    ]
    for n, (sid, turn, seq, kind, payload) in enumerate(rows):
        conn.execute(
            "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sid, turn, seq, float(n), (T0 + timedelta(seconds=n)).isoformat(), kind, payload),
        )
    conn.close()
    with EventLog(db) as log:
        found = Conversations(log)
        assert [h.turn_id for h in found.search("garden")] == [2]
        assert [m.text for m in found.messages("s")] == ["pepper garden", "Peppers!"]
