"""RelationshipMemory on a real EventLog file: episodes, facts, goals, recall, commit."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.memory import EpisodicEvent, MemoryCandidate, UserFact
from rilai_desktop.contracts.payloads import MemoryCommitted, MemoryRetrieved
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.relationship import RelationshipMemory, UserGoal, fact_hash
from rilai_desktop.store import EventLog

T0 = datetime(2026, 1, 20, 10, 0, 0, tzinfo=UTC)
HOSTILE = [
    "'; DROP TABLE memory_episodes; --",
    "Robert'); DELETE FROM memory_user_facts; --",
    "ünïcödé — 日本語のテキスト — עברית",
    "emoji 🎉🔥👩‍👩‍👧‍👦 and ZWJ",
    "quotes \" ' ` and backslashes \\ \\n and %s %d {0}",
]


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.at = now

    def now(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rilai.db"


@pytest.fixture
def log(db_path: Path) -> Iterator[EventLog]:
    with EventLog(db_path) as opened:
        yield opened


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(dimension=64)


@pytest.fixture
def mem(log: EventLog, embedder: HashEmbedder, clock: Clock) -> RelationshipMemory:
    return RelationshipMemory(log, embedder, clock=clock)


def count(log: EventLog, table: str) -> int:
    return int(log.connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def is_uuid4(text: str) -> bool:
    return uuid.UUID(text).version == 4


# ── episodes ─────────────────────────────────────────────────────────────────


def test_add_episode_stores_row_with_embedding(mem: RelationshipMemory, log: EventLog) -> None:
    ep = mem.add_episode(
        "User talked about the thesis deadline",
        emotions=["anxious"],
        participants=["user", "rilai"],
        tags=["work"],
        importance=0.8,
        turn_id=3,
        session_id="s1",
    )
    assert isinstance(ep, EpisodicEvent)
    assert is_uuid4(ep.id)
    assert ep.timestamp == T0
    row = log.connection.execute(
        "SELECT summary, importance, turn_id, session_id, length(embedding) FROM memory_episodes"
    ).fetchone()
    assert row == ("User talked about the thesis deadline", 0.8, 3, "s1", 64 * 4)
    assert mem.get_episode(ep.id) == ep


def test_get_episode_unknown_is_none(mem: RelationshipMemory) -> None:
    assert mem.get_episode("nope") is None


def test_list_episodes_newest_first_limit_and_since(mem: RelationshipMemory, clock: Clock) -> None:
    ids = []
    for i in range(5):
        ids.append(mem.add_episode(f"episode {i}").id)
        clock.advance(hours=1)
    listed = mem.list_episodes()
    assert [e.id for e in listed] == ids[::-1]
    assert [e.id for e in mem.list_episodes(limit=2)] == ids[:-3:-1]
    since = mem.list_episodes(since=T0 + timedelta(hours=3))
    assert [e.id for e in since] == [ids[4], ids[3]]
    # since in another timezone is the same instant
    tz = timezone(timedelta(hours=5))
    assert len(mem.list_episodes(since=(T0 + timedelta(hours=3)).astimezone(tz))) == 2


def test_list_episodes_rejects_bad_limit_and_naive_since(mem: RelationshipMemory) -> None:
    with pytest.raises(MemoryInputError):
        mem.list_episodes(limit=0)
    with pytest.raises(MemoryInputError, match="naive"):
        mem.list_episodes(since=datetime(2026, 1, 1))


def test_explicit_timestamp_kept_and_naive_refused(mem: RelationshipMemory) -> None:
    when = datetime(2025, 12, 24, 18, 30, tzinfo=timezone(timedelta(hours=-5)))
    ep = mem.add_episode("Christmas eve dinner", timestamp=when)
    got = mem.get_episode(ep.id)
    assert got is not None and got.timestamp == when
    with pytest.raises(MemoryInputError, match="naive"):
        mem.add_episode("x", timestamp=datetime(2025, 12, 24))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"summary": "x" * 501}, "501 characters"),
        ({"summary": ""}, "empty"),
        ({"summary": "   "}, "empty"),
        ({"summary": 42}, "string"),
        ({"summary": "ok", "importance": 1.5}, "between 0 and 1"),
        ({"summary": "ok", "importance": -0.1}, "between 0 and 1"),
        ({"summary": "ok", "importance": float("nan")}, "between 0 and 1"),
        ({"summary": "ok", "turn_id": -1}, "turn_id"),
        ({"summary": "ok", "tags": "work"}, "list of strings"),
        ({"summary": "ok", "tags": [1]}, "string"),
        ({"summary": "ok", "emotions": ["x" * 101]}, "101 characters"),
        ({"summary": "bad \ud800 surrogate"}, "surrogate"),
        ({"summary": "nul \x00 char"}, "NUL"),
    ],
)
def test_add_episode_validation(
    mem: RelationshipMemory, log: EventLog, kwargs: dict[str, Any], match: str
) -> None:
    summary = kwargs.pop("summary")
    with pytest.raises(MemoryInputError, match=match) as info:
        mem.add_episode(summary, **kwargs)
    assert info.value.code == MemoryInputError.code
    assert count(log, "memory_episodes") == 0


def test_summary_at_limit_is_fine(mem: RelationshipMemory) -> None:
    ep = mem.add_episode("é" * 500)
    assert len(ep.summary) == 500


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stored_verbatim(
    db_path: Path, log: EventLog, mem: RelationshipMemory, text: str
) -> None:
    ep = mem.add_episode(text, tags=[text[:100]])
    fact = mem.observe_fact(text, "other", confidence=0.5, source=text[:200])
    goal = mem.add_goal(text, notes=text)
    log.close()
    with EventLog(db_path) as again:
        m2 = RelationshipMemory(again, HashEmbedder(dimension=64))
        got_ep = m2.get_episode(ep.id)
        got_fact = m2.get_fact(fact.id)
        got_goal = m2.get_goal(goal.id)
        assert got_ep is not None and got_ep.summary == text and got_ep.tags == [text[:100]]
        assert got_fact is not None and got_fact.fact == text
        assert got_goal is not None and got_goal.title == text and got_goal.notes == text
        assert count(again, "memory_episodes") == 1
        recalled = m2.recall_for_workspace(text)
        assert recalled["episodes"][0]["summary"] == text


def test_update_episode_changes_fields_and_reembeds(mem: RelationshipMemory, log: EventLog) -> None:
    ep = mem.add_episode("walked the dog in the park", importance=0.4)
    before = log.connection.execute("SELECT embedding FROM memory_episodes").fetchone()[0]
    updated = mem.update_episode(ep.id, importance=0.9, tags=["pets"])
    assert updated.importance == 0.9 and updated.tags == ["pets"]
    same = log.connection.execute("SELECT embedding FROM memory_episodes").fetchone()[0]
    assert same == before
    updated = mem.update_episode(ep.id, summary="argued with a coworker about deadlines")
    after = log.connection.execute("SELECT embedding FROM memory_episodes").fetchone()[0]
    assert after != before
    assert mem.get_episode(ep.id) == updated
    assert updated.importance == 0.9 and updated.id == ep.id


def test_update_episode_errors(mem: RelationshipMemory) -> None:
    ep = mem.add_episode("something happened")
    with pytest.raises(MemoryInputError, match="no such episode"):
        mem.update_episode("missing-id", importance=0.2)
    with pytest.raises(MemoryInputError, match="cannot change id"):
        mem.update_episode(ep.id, id="other")
    with pytest.raises(MemoryInputError, match="501 characters"):
        mem.update_episode(ep.id, summary="y" * 501)
    with pytest.raises(MemoryInputError, match="naive"):
        mem.update_episode(ep.id, timestamp=datetime(2026, 1, 1))
    with pytest.raises(MemoryInputError, match="cleared"):
        mem.update_episode(ep.id, timestamp=None)
    assert mem.get_episode(ep.id) == ep


def test_delete_episode_gone_after_reopen(
    db_path: Path, log: EventLog, mem: RelationshipMemory
) -> None:
    keep = mem.add_episode("keep me")
    drop = mem.add_episode("forget me")
    assert mem.delete_episode(drop.id) is True
    assert mem.delete_episode(drop.id) is False
    assert [e["id"] for e in mem.recall_for_workspace("forget me")["episodes"]] == [keep.id]
    log.close()
    with EventLog(db_path) as again:
        ids = [r[0] for r in again.connection.execute("SELECT id FROM memory_episodes")]
        assert ids == [keep.id]


# ── user facts ───────────────────────────────────────────────────────────────


def test_observe_new_fact(mem: RelationshipMemory, log: EventLog) -> None:
    fact = mem.observe_fact("User prefers short replies", "preference", confidence=0.6, source="t1")
    assert isinstance(fact, UserFact)
    assert is_uuid4(fact.id)
    assert fact.evidence_count == 1
    assert fact.first_observed == fact.last_confirmed == T0
    row = log.connection.execute(
        "SELECT fact_hash, length(embedding) FROM memory_user_facts"
    ).fetchone()
    assert row == (fact_hash("User prefers short replies"), 64 * 4)


def test_same_text_confirms(mem: RelationshipMemory, clock: Clock, log: EventLog) -> None:
    first = mem.observe_fact("User prefers short replies", "preference", confidence=0.6, source="a")
    clock.advance(days=2)
    again = mem.observe_fact(
        "  user PREFERS   short replies ", "preference", confidence=0.5, source="b"
    )
    assert again.id == first.id
    assert again.evidence_count == 2
    assert again.confidence == pytest.approx(0.65)
    assert again.first_observed == T0
    assert again.last_confirmed == T0 + timedelta(days=2)
    assert again.fact == "User prefers short replies"  # the original wording stays
    assert count(log, "memory_user_facts") == 1


def test_same_text_confirms_across_categories(mem: RelationshipMemory, log: EventLog) -> None:
    first = mem.observe_fact("Has a dog named Biscuit", "background", confidence=0.7, source="a")
    again = mem.observe_fact("has a dog named biscuit", "relationship", confidence=0.9, source="b")
    assert again.id == first.id
    assert again.category == "background"
    assert again.confidence == pytest.approx(0.95)
    assert count(log, "memory_user_facts") == 1


def test_similar_text_same_category_confirms(mem: RelationshipMemory, log: EventLog) -> None:
    first = mem.observe_fact("User prefers short replies", "preference", confidence=0.6, source="a")
    again = mem.observe_fact(
        "User prefers short replies!", "preference", confidence=0.8, source="b"
    )
    assert again.id == first.id
    assert again.evidence_count == 2
    assert again.confidence == pytest.approx(0.85)
    assert count(log, "memory_user_facts") == 1


def test_similar_text_other_category_is_new(mem: RelationshipMemory, log: EventLog) -> None:
    first = mem.observe_fact("User prefers short replies", "preference", confidence=0.6, source="a")
    other = mem.observe_fact(
        "User prefers short replies!", "communication_style", confidence=0.6, source="b"
    )
    assert other.id != first.id
    assert count(log, "memory_user_facts") == 2


def test_below_threshold_is_new(mem: RelationshipMemory, log: EventLog) -> None:
    mem.observe_fact("User prefers short replies", "preference", confidence=0.6, source="a")
    mem.observe_fact("User prefers short, direct replies", "preference", confidence=0.6, source="a")
    assert count(log, "memory_user_facts") == 2  # cosine 0.89 < 0.9


def test_confidence_capped_at_one(mem: RelationshipMemory) -> None:
    mem.observe_fact("Vegetarian", "background", confidence=0.99, source="a")
    again = mem.observe_fact("vegetarian", "background", confidence=0.2, source="b")
    assert again.confidence == 1.0
    assert (
        mem.observe_fact("vegetarian", "background", confidence=1.0, source="c").confidence == 1.0
    )


@pytest.mark.parametrize(
    ("fact", "category", "confidence", "source", "match"),
    [
        ("x" * 301, "other", 0.5, "s", "301 characters"),
        ("", "other", 0.5, "s", "empty"),
        ("ok", "hobby", 0.5, "s", "category 'hobby' is not one of"),
        ("ok", "other", 1.2, "s", "between 0 and 1"),
        ("ok", "other", -0.01, "s", "between 0 and 1"),
        ("ok", "other", float("inf"), "s", "between 0 and 1"),
        ("ok", "other", True, "s", "number"),
        ("ok", "other", 0.5, "", "source is empty"),
    ],
)
def test_observe_fact_validation(
    mem: RelationshipMemory,
    log: EventLog,
    fact: str,
    category: str,
    confidence: float,
    source: str,
    match: str,
) -> None:
    with pytest.raises(MemoryInputError, match=match):
        mem.observe_fact(fact, category, confidence=confidence, source=source)
    assert count(log, "memory_user_facts") == 0


def test_list_facts_filters_and_orders(mem: RelationshipMemory) -> None:
    a = mem.observe_fact("Likes tea", "preference", confidence=0.4, source="s")
    b = mem.observe_fact("Hates loud music", "preference", confidence=0.9, source="s")
    c = mem.observe_fact("Works as a nurse", "background", confidence=0.7, source="s")
    assert [f.id for f in mem.list_facts()] == [b.id, c.id, a.id]
    assert [f.id for f in mem.list_facts(category="preference")] == [b.id, a.id]
    assert [f.id for f in mem.list_facts(min_confidence=0.5)] == [b.id, c.id]
    with pytest.raises(MemoryInputError):
        mem.list_facts(category="nope")
    with pytest.raises(MemoryInputError):
        mem.list_facts(min_confidence=2)


def test_update_fact_reembeds_and_rehashes(mem: RelationshipMemory, log: EventLog) -> None:
    fact = mem.observe_fact("Likes tea", "preference", confidence=0.4, source="s")
    before = log.connection.execute("SELECT embedding, fact_hash FROM memory_user_facts").fetchone()
    updated = mem.update_fact(fact.id, confidence=0.8)
    assert updated.confidence == 0.8 and updated.fact == "Likes tea"
    assert (
        log.connection.execute("SELECT embedding, fact_hash FROM memory_user_facts").fetchone()
        == before
    )
    updated = mem.update_fact(fact.id, fact="Likes green tea, not coffee", category="other")
    after = log.connection.execute("SELECT embedding, fact_hash FROM memory_user_facts").fetchone()
    assert after[0] != before[0] and after[1] == fact_hash("Likes green tea, not coffee")
    assert mem.get_fact(fact.id) == updated
    assert updated.category == "other" and updated.confidence == 0.8
    # the new text now dedupes
    again = mem.observe_fact("likes green tea, not coffee", "other", confidence=0.1, source="t")
    assert again.id == fact.id


def test_update_fact_errors(mem: RelationshipMemory) -> None:
    fact = mem.observe_fact("Likes tea", "preference", confidence=0.4, source="s")
    with pytest.raises(MemoryInputError, match="no such fact"):
        mem.update_fact("missing", confidence=0.5)
    with pytest.raises(MemoryInputError, match="301 characters"):
        mem.update_fact(fact.id, fact="z" * 301)
    with pytest.raises(MemoryInputError, match="category"):
        mem.update_fact(fact.id, category="food")
    with pytest.raises(MemoryInputError, match="between 0 and 1"):
        mem.update_fact(fact.id, confidence=3.0)
    assert mem.get_fact(fact.id) == fact


def test_delete_fact_gone_after_reopen(
    db_path: Path, log: EventLog, mem: RelationshipMemory
) -> None:
    fact = mem.observe_fact("Likes tea", "preference", confidence=0.4, source="s")
    other = mem.observe_fact("Has two cats", "background", confidence=0.4, source="s")
    assert mem.delete_fact(fact.id) is True
    assert mem.delete_fact(fact.id) is False
    assert mem.get_fact(fact.id) is None
    assert [f["id"] for f in mem.recall_for_workspace("tea")["user_facts"]] == [other.id]
    log.close()
    with EventLog(db_path) as again:
        assert [r[0] for r in again.connection.execute("SELECT id FROM memory_user_facts")] == [
            other.id
        ]


# ── goals and open threads ───────────────────────────────────────────────────


def test_add_and_list_goals_ordering(mem: RelationshipMemory, clock: Clock) -> None:
    undated = mem.add_goal("Learn to juggle")
    clock.advance(minutes=1)
    later = mem.add_goal("Submit thesis", deadline=T0 + timedelta(days=30))
    clock.advance(minutes=1)
    soon = mem.add_goal("Call mum", kind="open_thread", deadline=T0 + timedelta(days=1))
    clock.advance(minutes=1)
    undated2 = mem.add_goal("Read more", kind="open_thread")
    assert isinstance(soon, UserGoal) and is_uuid4(soon.id)
    assert soon.status == "open" and soon.created_at == soon.updated_at
    assert [g.id for g in mem.list_goals()] == [soon.id, later.id, undated.id, undated2.id]
    assert [g.id for g in mem.list_goals(kind="open_thread")] == [soon.id, undated2.id]
    assert [g.id for g in mem.list_goals(kind="goal")] == [later.id, undated.id]


def test_goal_fields_round_trip(mem: RelationshipMemory) -> None:
    deadline = datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=2)))
    goal = mem.add_goal("Run 5k", deadline=deadline, notes="couch to 5k", source_turn_ids=["3", 4])
    got = mem.get_goal(goal.id)
    assert got == goal
    assert got.deadline == deadline and got.source_turn_ids == ["3", "4"]


def test_update_close_delete_goal(
    mem: RelationshipMemory, clock: Clock, db_path: Path, log: EventLog
) -> None:
    goal = mem.add_goal("Run 5k", deadline=T0 + timedelta(days=3))
    clock.advance(hours=1)
    updated = mem.update_goal(goal.id, title="Run 10k", notes="after the 5k", deadline=None)
    assert updated.title == "Run 10k" and updated.deadline is None
    assert updated.updated_at == T0 + timedelta(hours=1) and updated.created_at == T0
    assert mem.get_goal(goal.id) == updated
    done = mem.close_goal(goal.id)
    assert done.status == "done"
    assert mem.list_goals() == []
    assert [g.id for g in mem.list_goals(status="done")] == [goal.id]
    assert [g.id for g in mem.list_goals(status=None)] == [goal.id]
    assert mem.close_goal(goal.id, status="dropped").status == "dropped"
    other = mem.add_goal("Keep me")
    assert mem.delete_goal(goal.id) is True
    assert mem.delete_goal(goal.id) is False
    log.close()
    with EventLog(db_path) as again:
        assert [r[0] for r in again.connection.execute("SELECT id FROM memory_goals")] == [other.id]


def test_goal_errors(mem: RelationshipMemory, log: EventLog) -> None:
    with pytest.raises(MemoryInputError, match="301 characters"):
        mem.add_goal("t" * 301)
    with pytest.raises(MemoryInputError, match="empty"):
        mem.add_goal(" ")
    with pytest.raises(MemoryInputError, match="naive"):
        mem.add_goal("x", deadline=datetime(2026, 2, 1))
    with pytest.raises(MemoryInputError, match="kind"):
        mem.add_goal("x", kind="task")  # type: ignore[arg-type]
    assert count(log, "memory_goals") == 0
    goal = mem.add_goal("x")
    with pytest.raises(MemoryInputError, match="no such goal"):
        mem.update_goal("missing", title="y")
    with pytest.raises(MemoryInputError, match="no such goal"):
        mem.close_goal("missing")
    with pytest.raises(MemoryInputError, match="cannot change created_at"):
        mem.update_goal(goal.id, created_at=T0)
    with pytest.raises(MemoryInputError, match="status"):
        mem.update_goal(goal.id, status="finished")
    with pytest.raises(MemoryInputError, match="status"):
        mem.close_goal(goal.id, status="open")  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError):
        mem.list_goals(status="closed")  # type: ignore[arg-type]
    assert mem.get_goal(goal.id) == goal


def test_due_within_uses_the_clock(mem: RelationshipMemory, clock: Clock) -> None:
    overdue = mem.add_goal("Overdue", deadline=T0 - timedelta(hours=1))
    in_1h = mem.add_goal("In an hour", deadline=T0 + timedelta(hours=1))
    in_2d = mem.add_goal("In two days", kind="open_thread", deadline=T0 + timedelta(days=2))
    mem.add_goal("No deadline")
    closed = mem.add_goal("Closed", deadline=T0 + timedelta(minutes=30))
    mem.close_goal(closed.id)
    assert [g.id for g in mem.due_within(timedelta(hours=2))] == [in_1h.id]
    assert [g.id for g in mem.due_within(timedelta(days=3))] == [in_1h.id, in_2d.id]
    assert mem.due_within(timedelta(0)) == []
    clock.at = T0 - timedelta(hours=2)
    assert [g.id for g in mem.due_within(timedelta(hours=1, minutes=30))] == [overdue.id]
    clock.at = T0 + timedelta(days=1)
    assert [g.id for g in mem.due_within(timedelta(days=1))] == [in_2d.id]
    with pytest.raises(MemoryInputError, match="negative"):
        mem.due_within(timedelta(hours=-1))


# ── recall ───────────────────────────────────────────────────────────────────


def test_recall_shape_validates_as_memory_retrieved(mem: RelationshipMemory, clock: Clock) -> None:
    mem.add_episode("Talked about the thesis deadline and stress", importance=0.7, tags=["work"])
    mem.add_episode("Cooked pasta with a friend", importance=0.3)
    mem.observe_fact("Is writing a thesis in biology", "background", confidence=0.8, source="t1")
    mem.observe_fact("Prefers tea over coffee", "preference", confidence=0.6, source="t2")
    mem.add_goal("Submit thesis", deadline=T0 + timedelta(days=5))
    mem.add_goal("Ask about the dentist", kind="open_thread")
    payload = mem.recall_for_workspace("thesis deadline stress")
    assert set(payload) == {"episodes", "user_facts", "open_threads"}
    MemoryRetrieved.model_validate(payload)
    event = EngineEvent(
        session_id="s1",
        turn_id=1,
        seq=0,
        ts_monotonic=0.0,
        kind=EventKind.MEMORY_RETRIEVED,
        payload=payload,
    )
    assert event.payload == payload
    ep = payload["episodes"][0]
    assert ep["summary"] == "Talked about the thesis deadline and stress"
    assert "embedding" not in ep
    EpisodicEvent.model_validate(ep)  # exactly an EpisodicEvent dump (extra fields forbidden)
    assert payload["user_facts"][0]["fact"] == "Is writing a thesis in biology"
    for f in payload["user_facts"]:
        UserFact.model_validate(f)
    threads = payload["open_threads"]
    assert [t["title"] for t in threads] == ["Submit thesis", "Ask about the dentist"]
    for t in threads:
        UserGoal.model_validate(t)
    assert isinstance(ep["timestamp"], str)


def test_recall_event_can_be_appended_to_the_log(mem: RelationshipMemory, log: EventLog) -> None:
    mem.add_episode("A ünïcödé 🎉 episode")
    payload = mem.recall_for_workspace("episode")
    event = log.append("s1", 1, EventKind.MEMORY_RETRIEVED, payload)
    assert event.payload == payload


def test_recall_limits_and_empty(mem: RelationshipMemory) -> None:
    empty = mem.recall_for_workspace("anything")
    assert empty == {"episodes": [], "user_facts": [], "open_threads": []}
    for i in range(6):
        mem.add_episode(f"episode number {i}")
        mem.observe_fact(f"fact number {i} about things {i}", "other", confidence=0.5, source="s")
        mem.add_goal(f"goal {i}")
    out = mem.recall_for_workspace("number")
    assert (len(out["episodes"]), len(out["user_facts"]), len(out["open_threads"])) == (3, 5, 5)
    out = mem.recall_for_workspace("number", k_episodes=0, k_facts=1, k_threads=0)
    assert (len(out["episodes"]), len(out["user_facts"]), len(out["open_threads"])) == (0, 1, 0)
    with pytest.raises(MemoryInputError):
        mem.recall_for_workspace("x", k_episodes=-1)
    with pytest.raises(MemoryInputError):
        mem.recall_for_workspace(None)  # type: ignore[arg-type]


def test_recall_empty_query_ranks_by_importance(mem: RelationshipMemory) -> None:
    mem.add_episode("minor thing", importance=0.1)
    big = mem.add_episode("major life event", importance=0.95)
    out = mem.recall_for_workspace("   ", k_episodes=1)
    assert out["episodes"][0]["id"] == big.id


def test_recall_blends_importance_and_recency(mem: RelationshipMemory, clock: Clock) -> None:
    old = mem.add_episode("went hiking in the mountains", importance=0.5)
    clock.advance(days=365)
    new = mem.add_episode("went hiking in the mountains again", importance=0.5)
    out = mem.recall_for_workspace("hiking mountains")
    assert [e["id"] for e in out["episodes"]][:2] == [new.id, old.id]
    low = mem.observe_fact("Enjoys hiking", "preference", confidence=0.2, source="s")
    high = mem.observe_fact("Enjoys hiking!", "other", confidence=0.9, source="s")
    facts = mem.recall_for_workspace("hiking")["user_facts"]
    assert [f["id"] for f in facts][:2] == [high.id, low.id]


def test_recall_cache_invalidated_on_writes(
    mem: RelationshipMemory, embedder: HashEmbedder
) -> None:
    a = mem.add_episode("planted tomatoes in the garden")
    assert [e["id"] for e in mem.recall_for_workspace("tomatoes")["episodes"]] == [a.id]
    calls = embedder.encoded_texts
    mem.recall_for_workspace("tomatoes")
    assert embedder.encoded_texts == calls  # cached matrix + cached query vector
    b = mem.add_episode("harvested tomatoes today")
    got = [e["id"] for e in mem.recall_for_workspace("tomatoes")["episodes"]]
    assert set(got) == {a.id, b.id}
    mem.update_episode(a.id, summary="painted the fence")
    got = [e["id"] for e in mem.recall_for_workspace("tomatoes", k_episodes=1)["episodes"]]
    assert got == [b.id]


def test_recall_inside_rolled_back_transaction_does_not_poison_cache(
    mem: RelationshipMemory, log: EventLog
) -> None:
    keep = mem.add_episode("kept episode about sailing")
    with pytest.raises(RuntimeError), log.transaction():
        mem.add_episode("doomed episode about sailing")
        assert len(mem.recall_for_workspace("sailing")["episodes"]) == 2
        raise RuntimeError("roll back")
    assert [e["id"] for e in mem.recall_for_workspace("sailing")["episodes"]] == [keep.id]


def test_model_change_reembeds(db_path: Path, log: EventLog, mem: RelationshipMemory) -> None:
    ep = mem.add_episode("a walk on the beach")
    fact = mem.observe_fact("Loves the sea", "preference", confidence=0.7, source="s")
    log.close()
    with EventLog(db_path) as again:
        other = RelationshipMemory(again, HashEmbedder(dimension=32))
        out = other.recall_for_workspace("beach walk")
        assert out["episodes"][0]["id"] == ep.id
        assert out["user_facts"][0]["id"] == fact.id
        sizes = {
            r[0]
            for r in again.connection.execute(
                "SELECT length(embedding) FROM memory_episodes"
                " UNION SELECT length(embedding) FROM memory_user_facts"
            )
        }
        assert sizes == {32 * 4}
        again_fact = other.observe_fact("loves the sea", "preference", confidence=0.7, source="s")
        assert again_fact.id == fact.id


def test_rows_without_embedding_are_still_recalled(mem: RelationshipMemory, log: EventLog) -> None:
    mem.recall_for_workspace("warm up")  # records the model
    with log.transaction() as tx:
        tx.execute(
            "INSERT INTO memory_episodes (id, timestamp, summary) VALUES (?, ?, ?)",
            ("legacy", T0.isoformat(), "legacy episode about chess"),
        )
    out = mem.recall_for_workspace("chess")
    assert out["episodes"][0]["id"] == "legacy"


# ── apply_candidates ─────────────────────────────────────────────────────────


def cand(type_: str, content: str, importance: float = 0.6, **context: Any) -> MemoryCandidate:
    return MemoryCandidate(
        type=type_,
        content=content,
        importance=importance,
        source_agent="test_agent",
        context=context or None,
    )


def test_apply_candidates_summary(mem: RelationshipMemory, log: EventLog) -> None:
    mem.observe_fact("Prefers tea over coffee", "preference", confidence=0.5, source="s")
    summary = mem.apply_candidates(
        [
            cand("episodic", "User got the job offer", 0.9, emotions=["joy"], tags=["work"]),
            cand("user_fact", "prefers tea over coffee", 0.6, category="preference"),
            cand("user_fact", "Works night shifts", 0.5, category="not-a-category"),
            cand("user_fact", "Lives in Lisbon", 0.7),
            cand("goal", "Prepare for the first day", 0.7, deadline="2026-02-01T09:00:00+00:00"),
            cand("session_note", "Session was upbeat", 0.4),
            cand("episodic", "trivial", 0.1),
            cand("episodic", "   ", 0.9),
        ],
        session_id="s1",
        turn_id=7,
    )
    assert summary == {
        "episodes": 2,
        "facts_new": 2,
        "facts_confirmed": 1,
        "goals": 1,
        "dropped": 2,
    }
    MemoryCommitted.model_validate({"summary": summary})
    log.append("s1", 7, EventKind.MEMORY_COMMITTED, {"summary": summary})
    episodes = {e.summary: e for e in mem.list_episodes()}
    job = episodes["User got the job offer"]
    assert job.importance == 0.9 and job.turn_id == 7 and job.session_id == "s1"
    assert job.emotions == ["joy"] and job.tags == ["work"]
    assert episodes["Session was upbeat"].tags == ["session_note"]
    facts = {f.fact: f for f in mem.list_facts()}
    assert facts["Works night shifts"].category == "other"
    assert facts["Works night shifts"].confidence == 0.5
    assert facts["Lives in Lisbon"].category == "other"
    assert "turn 7" in facts["Lives in Lisbon"].source
    assert facts["Prefers tea over coffee"].evidence_count == 2
    (goal,) = mem.list_goals()
    assert goal.title == "Prepare for the first day"
    assert goal.source_turn_ids == ["7"]
    assert goal.deadline == datetime(2026, 2, 1, 9, tzinfo=UTC)


def test_apply_candidates_repeated_goal_reaffirms(mem: RelationshipMemory, log: EventLog) -> None:
    mem.apply_candidates([cand("goal", "Finish the thesis")], session_id="s", turn_id=1)
    summary = mem.apply_candidates([cand("goal", "finish the  THESIS")], session_id="s", turn_id=2)
    assert summary["goals"] == 1
    (goal,) = mem.list_goals()
    assert goal.source_turn_ids == ["1", "2"]
    assert count(log, "memory_goals") == 1


def test_apply_candidates_long_and_broken_content(mem: RelationshipMemory) -> None:
    summary = mem.apply_candidates(
        [
            cand("episodic", "long " * 200),
            cand("goal", "g" * 400),
            cand("user_fact", "f" * 301),
            cand("episodic", "broken \ud800 text"),
            {"type": "episodic", "content": "from a dict", "importance": 0.5, "source_agent": "a"},
            {"type": "nonsense", "content": "x", "importance": 0.5, "source_agent": "a"},
        ],
        session_id="s",
        turn_id=1,
    )
    assert summary == {
        "episodes": 2,
        "facts_new": 0,
        "facts_confirmed": 0,
        "goals": 1,
        "dropped": 3,
    }
    long_ep = next(e for e in mem.list_episodes() if e.summary.startswith("long"))
    assert len(long_ep.summary) == 500 and long_ep.summary.endswith("…")
    assert len(mem.list_goals()[0].title) == 300


def test_apply_candidates_is_all_or_nothing(mem: RelationshipMemory, log: EventLog) -> None:
    with pytest.raises(RuntimeError), log.transaction():
        mem.apply_candidates(
            [cand("episodic", "x happened"), cand("user_fact", "likes x"), cand("goal", "do x")],
            session_id="s",
            turn_id=1,
        )
        raise RuntimeError("the turn failed later")
    assert count(log, "memory_episodes") == count(log, "memory_user_facts") == 0
    assert count(log, "memory_goals") == 0
    assert mem.recall_for_workspace("x") == {"episodes": [], "user_facts": [], "open_threads": []}


def test_apply_candidates_bad_arguments(mem: RelationshipMemory) -> None:
    assert mem.apply_candidates([], session_id="s", turn_id=1)["dropped"] == 0
    with pytest.raises(MemoryInputError):
        mem.apply_candidates([], session_id="s", turn_id=-1)
    with pytest.raises(MemoryInputError):
        mem.apply_candidates("episodic", session_id="s", turn_id=1)  # type: ignore[arg-type]


def test_fact_hash_folds_case_and_space() -> None:
    assert fact_hash(" A  b\tC ") == fact_hash("a b c")
    assert fact_hash("a b c") != fact_hash("a b d")


def test_embeddings_are_unit_float32(mem: RelationshipMemory, log: EventLog) -> None:
    mem.add_episode("check the blob")
    blob = log.connection.execute("SELECT embedding FROM memory_episodes").fetchone()[0]
    vec = np.frombuffer(blob, dtype="<f4")
    assert vec.shape == (64,) and float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-5)


def test_invalidate_cache_after_editing_rows_by_hand(
    mem: RelationshipMemory, log: EventLog
) -> None:
    a = mem.add_episode("first note", importance=0.9)
    b = mem.add_episode("second note", importance=0.1)
    assert mem.recall_for_workspace("", k_episodes=1)["episodes"][0]["id"] == a.id
    with log.transaction() as tx:
        tx.execute("UPDATE memory_episodes SET importance = 1.0 WHERE id = ?", (b.id,))
        tx.execute("UPDATE memory_episodes SET importance = 0.0 WHERE id = ?", (a.id,))
    mem.invalidate_cache()
    assert mem.recall_for_workspace("", k_episodes=1)["episodes"][0]["id"] == b.id
