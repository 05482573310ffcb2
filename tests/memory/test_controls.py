"""The person's controls over memory (issue 20): edit, delete, pause, pin, "not relevant",
through every recall path, and the rebuild of the controls and the index from the log."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.memory.controls import snapshot
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.entries import get_entry, list_entries
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.store.event_log import EventLog
from tests.memory.conftest import Clock, SleepRecorder, event_payloads, make_manager

# the LLM re-rank picks the first candidate (the rest follow in RAG order)
PICK_ALL = {"picks": [{"n": 1, "relevance": "high"}]}


@pytest.fixture
def mm(log: EventLog, tmp_path: Path) -> Any:
    m = make_manager(
        log,
        tmp_path,
        embedder=HashEmbedder(),
        clock=Clock(),
        sleeps=SleepRecorder(),
        retrieval_model=ScriptedLLM(default=PICK_ALL),
    )
    m.open()
    yield m
    m.close()


def _ids(m: MemoryManager, query: str, mode: str, k: int = 5) -> list[str]:
    return [i.item_id for i in m.retrieve(query, mode, k).items]


def test_an_edit_is_what_the_next_recall_returns(mm: MemoryManager, log: EventLog) -> None:
    item = mm.remember("My sister is called Anneliese and she lives in Porto")
    mm.edit_entry("item", item.item_id, "My sister is called Marta and she lives in Porto")
    found = mm.retrieve("my sister", "rag", 3).items
    assert found[0].item_id == item.item_id
    assert "Marta" in found[0].content and "Anneliese" not in found[0].content
    # the old words are gone from FTS5 too
    old = mm.connection.execute(
        "SELECT rowid FROM memory_items_fts WHERE memory_items_fts MATCH 'Anneliese'"
    ).fetchall()
    assert old == []
    changed = event_payloads(log, "memory.entry_changed")
    digest = hashlib.sha256(b"My sister is called Marta and she lives in Porto").hexdigest()
    assert changed == [
        {"kind": "item", "entry_id": item.item_id, "change": "edited", "content_hash": digest}
    ]
    assert "Marta" not in json.dumps(changed)  # the log never holds the text


def test_facts_episodes_and_goals_edit_in_place(mm: MemoryManager) -> None:
    rel = mm.relationship
    fact = rel.observe_fact("They live in Lisbon", "background", confidence=0.8, source="t")
    mm.edit_entry("fact", fact.id, "They live in Berlin")
    recalled = rel.recall_for_workspace("where do they live", k_facts=3)["user_facts"]
    assert [f["fact"] for f in recalled] == ["They live in Berlin"]
    goal = rel.add_goal("Run a marathon")
    mm.edit_entry("goal", goal.id, "Run a half marathon")
    assert rel.get_goal(goal.id).title == "Run a half marathon"  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["rag", "llm", "hybrid"])
def test_deleted_and_paused_items_are_never_recalled(mm: MemoryManager, mode: str) -> None:
    a = mm.remember("I adopted a cat named Miso last spring")
    b = mm.remember("My cat Miso likes to sleep on the piano")
    c = mm.remember("I work as a nurse at the city hospital")
    assert {a.item_id, b.item_id} <= set(_ids(mm, "my cat Miso", mode))
    mm.delete_entry("item", a.item_id)
    mm.set_entry_paused("item", b.item_id, True)
    for query in ("my cat Miso", "piano", "cat"):
        got = _ids(mm, query, mode)
        assert a.item_id not in got and b.item_id not in got
    assert len(mm.item_layer.index) == 1  # only c: deleted and paused left FAISS
    assert mm.get_item(a.item_id) is None and mm.get_item(b.item_id) is not None
    mm.set_entry_paused("item", b.item_id, False)
    assert b.item_id in _ids(mm, "my cat Miso", mode)
    assert len(mm.item_layer.index) == 2
    assert c.item_id in _ids(mm, "nurse hospital", mode)


def test_a_pinned_item_is_always_a_candidate_and_paused_beats_pinned(mm: MemoryManager) -> None:
    pinned = mm.remember("Their grandmother's birthday is on the ninth of May")
    for n in range(8):
        mm.remember(f"They went hiking on trail number {n} with friends")
    assert pinned.item_id not in _ids(mm, "hiking trail", "rag", 3)
    mm.set_entry_pinned("item", pinned.item_id, True)
    candidates, _ = mm.rag.candidates("hiking trail", 3)
    assert pinned.item_id in [s.item.item_id for s in candidates]
    mm.set_entry_paused("item", pinned.item_id, True)
    candidates, _ = mm.rag.candidates("hiking trail", 3)
    assert pinned.item_id not in [s.item.item_id for s in candidates]


def test_relationship_recall_skips_paused_adds_pinned(mm: MemoryManager) -> None:
    rel = mm.relationship
    facts = [
        rel.observe_fact(f"They enjoy {w}", "preference", confidence=0.7, source="t")
        for w in ("painting", "cycling", "baking", "chess")
    ]
    paused, gone, pinned = facts[0], facts[1], facts[2]
    episode = rel.add_episode("They told Rilai about a painting class", importance=0.9)
    thread = rel.add_goal("Ask how the painting class went", kind="open_thread")
    mm.set_entry_paused("fact", paused.id, True)
    mm.delete_entry("fact", gone.id)
    mm.set_entry_paused("episode", episode.id, True)
    mm.set_entry_paused("goal", thread.id, True)
    mm.set_entry_pinned("fact", pinned.id, True)
    got = rel.recall_for_workspace("painting", k_episodes=3, k_facts=1, k_threads=3)
    ids = [f["id"] for f in got["user_facts"]]
    assert paused.id not in ids and gone.id not in ids
    assert pinned.id in ids  # beyond k_facts=1: pinned is always considered
    assert got["episodes"] == [] and got["open_threads"] == []


def test_not_relevant_lowers_the_entry_for_queries_like_that_one(mm: MemoryManager) -> None:
    item = mm.remember("They are allergic to peanuts")
    before = mm.retrieve("peanuts allergy", "rag", 3)
    mm.entries.not_relevant("item", item.item_id, "peanuts allergy")
    after = mm.retrieve("peanuts allergy", "rag", 3)
    assert after.confidence_scores[0] == pytest.approx(before.confidence_scores[0] * 0.5, 1e-4)
    other = mm.retrieve("what are they allergic to", "rag", 3)  # another query: not lowered
    assert other.confidence_scores[0] > after.confidence_scores[0]


def test_controls_show_in_the_entries_and_reject_unknown_ids(mm: MemoryManager) -> None:
    item = mm.remember("They play the cello")
    mm.set_entry_pinned("item", item.item_id, True)
    entry = get_entry(mm.connection, "item", item.item_id)
    assert entry is not None and entry.pinned and not entry.paused and entry.valid
    assert [e.entry_id for e in list_entries(mm.connection, query="cello")] == [item.item_id]
    with pytest.raises(Exception, match="no memory fact"):
        mm.set_entry_paused("fact", "nope", True)
    with pytest.raises(Exception, match="kind must be"):
        mm.edit_entry("thing", "x", "y")  # type: ignore[arg-type]


# ── the rebuild: log + tables -> the same state ─────────────────────────────

OPS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "delete", "pause", "resume", "pin", "unpin"]),
        st.integers(0, 5),
        st.integers(0, 3),
    ),
    min_size=1,
    max_size=12,
)
QUERIES = ("their dog", "the garden", "music", "work")
_SERIAL = itertools.count(1)


def _ensure(m: MemoryManager, pool: list[tuple[str, str]], n: int) -> None:
    rel = m.relationship
    words = (
        "their dog Rex",
        "the garden roses",
        "jazz music",
        "work at the bakery",
        "a dog called Biscuit",
        "music lessons on Tuesdays",
        "the garden shed",
        "night shifts at work",
    )
    while len(pool) < n:
        i = len(pool)
        serial = next(_SERIAL)  # a word of its own, so no two entries tie in a ranking
        w = f"{words[serial % len(words)]} {''.join(chr(97 + int(d)) for d in str(serial))}x"
        kind = ("item", "fact", "episode", "goal")[i % 4]
        if kind == "item":
            pool.append(("item", m.remember(f"They love {w} ({i})").item_id))
        elif kind == "fact":
            fact = rel.observe_fact(f"They mention {w} ({i})", "other", confidence=0.6, source="t")
            pool.append(("fact", fact.id))
        elif kind == "episode":
            pool.append(("episode", rel.add_episode(f"A talk about {w} ({i})").id))
        else:
            pool.append(("goal", rel.add_goal(f"Follow up on {w} ({i})", kind="open_thread").id))


def _state(m: MemoryManager) -> tuple[Any, ...]:
    recalls = []
    for q in QUERIES:
        rel = m.relationship.recall_for_workspace(q, k_episodes=2, k_facts=2, k_threads=2)
        # as sets: entries the query does not touch tie (cosine 0), in index order
        recalls.append(
            (
                sorted(_ids(m, q, "rag", 4)),
                sorted(e["id"] for e in rel["episodes"]),
                sorted(f["id"] for f in rel["user_facts"]),
                sorted(g["id"] for g in rel["open_threads"]),
            )
        )
    return dict(snapshot(m.controls)), sorted(m.item_layer.index.ids().tolist()), recalls


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_replaying_the_log_rebuilds_the_same_memory_state(
    mm: MemoryManager, log: EventLog, ops: list[tuple[str, int, int]]
) -> None:
    pool: list[tuple[str, str]] = [
        (k, e) for k, e in [(e.kind, e.entry_id) for e in list_entries(mm.connection)]
    ]
    _ensure(mm, pool, 6)
    for op, idx, n in ops:
        kind, entry_id = pool[idx % len(pool)]
        if op == "edit":
            mm.edit_entry(
                kind, entry_id, f"An edited {kind} about their dog, take {n} of {entry_id}"
            )  # type: ignore[arg-type]
        elif op == "delete":
            mm.delete_entry(kind, entry_id)  # type: ignore[arg-type]
            pool.remove((kind, entry_id))
            _ensure(mm, pool, 6)
        elif op in ("pause", "resume"):
            mm.set_entry_paused(kind, entry_id, op == "pause")  # type: ignore[arg-type]
        else:
            mm.set_entry_pinned(kind, entry_id, op == "pin")  # type: ignore[arg-type]
    before = _state(mm)
    # throw the projections and the index away, and rebuild them from the log + tables
    with log.transaction() as tx:
        tx.execute("DELETE FROM memory_controls")
    mm.item_layer.discard_index()
    mm.item_layer.index_path.unlink(missing_ok=True)
    mm.rebuild_controls(log.replay_all())
    assert _state(mm) == before
