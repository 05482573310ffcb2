"""Export -> import into a fresh RILAI_HOME on the real engine with the scripted fakes
(hashed embedder, FAISS): the same entries come back, paused ones stay out, category
pages round-trip, and a wrong or damaged file imports nothing (docs/memory-export.md)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.engine import Engine
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.browse import MemoryBrowser
from tests.fake_engine import open_fake_engine

MESSAGES = (
    "My name is Ana and I live in Lisbon.",
    "I love jazz and I hate mornings.",
    "I work as a nurse at the hospital.",
)
PAUSED_SECRET = "I secretly collect porcelain frogs."


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_fake_engine()
    try:
        yield eng
    finally:
        eng.close()


def _db(engine: Engine) -> Path:
    return engine.parts.core.paths.db_path


def _control(engine: Engine, kind: str, entry_id: str, *, paused: int = 0, pinned: int = 0) -> None:
    """Pause or pin an entry as the person does (the facade: a memory.entry_changed event
    and the memory_controls row)."""
    if paused:
        engine.memory.set_paused(kind, entry_id, True)  # type: ignore[arg-type]
    if pinned:
        engine.memory.set_pinned(kind, entry_id, True)  # type: ignore[arg-type]


def _learn(engine: Engine) -> dict[str, str]:
    """A few turns, plus an episode, a goal, a knowledge-base document, one pinned and one
    paused entry; returns the ids of the pinned and the paused ones."""
    for text in MESSAGES:
        engine.send(text).result(timeout=60)
    memory = engine.parts.memory
    assert memory is not None
    memory.relationship.add_episode("Ana talked about her night shifts", importance=0.6)
    memory.relationship.add_goal("Run a half marathon", deadline=datetime(2027, 5, 1, tzinfo=UTC))
    memory.knowledge_bases.upsert_texts("kb_3", {"tea": "Green tea has less caffeine."})
    secret = memory.remember(PAUSED_SECRET, "notes")
    facts = engine.memory.browse.user_facts()
    jazz = next(f for f in facts if "jazz" in f.fact)
    _control(engine, "item", secret.item_id, paused=1)
    _control(engine, "fact", jazz.id, pinned=1)
    return {"paused": secret.item_id, "pinned": jazz.id}


def entries(engine: Engine) -> set[tuple[Any, ...]]:
    """What `rilai memory list --json` shows, read from the tables through the browser:
    (kind, id, text, category, pinned) of every entry that is not paused."""
    browser = MemoryBrowser(_db(engine))
    try:
        with sqlite3.connect(_db(engine)) as conn:
            controls = {
                (k, e): (p, pin)
                for k, e, p, pin in conn.execute(
                    "SELECT kind, entry_id, paused, pinned FROM memory_controls"
                )
            }
        rows: list[tuple[str, str, str, str | None]] = [
            ("item", i.item_id, i.content, i.category)
            for i in browser.items(include_turns=True, include_invalid=True, limit=500)
        ]
        rows += [("fact", f.id, f.fact, f.category) for f in browser.user_facts(limit=500)]
        rows += [("episode", e.id, e.summary, None) for e in browser.episodes(limit=500)]
        rows += [("goal", g.id, g.title, g.kind) for g in browser.goals(status=None)]
    finally:
        browser.close()
    return {
        (*row, bool(controls.get(row[:2], (0, 0))[1]))
        for row in rows
        if not controls.get(row[:2], (0, 0))[0]
    }


def _reopen_elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> Engine:
    monkeypatch.setenv("RILAI_HOME", str(tmp_path / name))
    return open_fake_engine()


def test_export_then_import_into_a_fresh_home_gives_the_same_entries(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _learn(engine)
    before = entries(engine)
    assert any(e[0] == "fact" and "jazz" in e[2] and e[4] for e in before), "pinned fact"
    assert any(e[0] == "episode" for e in before) and any(e[0] == "goal" for e in before)
    folder = tmp_path / "export"
    report = engine.memory.export(folder)
    assert report.paused_left_out == 1
    assert report.counts["user_facts"] == 3 and report.counts["pinned"] == 1
    pages = {p.name: p.read_text() for p in (folder / "categories").glob("*.md")}
    engine.close()

    fresh = _reopen_elsewhere(monkeypatch, tmp_path, "fresh-home")
    try:
        imported = fresh.memory.import_(folder)
        assert imported.counts == report.counts and not imported.skipped
        assert entries(fresh) == before
        # the paused entry is nowhere: not in the tables, not in any exported file
        assert PAUSED_SECRET not in json.dumps([list(e) for e in entries(fresh)])
        for path in folder.rglob("*"):
            if path.is_file():
                assert "porcelain" not in path.read_text(), path
        assert ids["paused"] not in (folder / "rilai-memory.json").read_text()
        # the category pages round-trip, to the file on disk too
        cats_dir = fresh.parts.core.paths.categories_dir
        assert {p.name: p.read_text() for p in cats_dir.glob("*.md")} == pages
        # recalled again: FTS5 + FAISS were rebuilt with the installed embedder
        hits = fresh.memory.search("jazz mornings")
        assert any("jazz" in i.content for i in hits.items)
        assert fresh.parts.memory is not None
        kb = fresh.parts.memory.knowledge_bases.semantic_search("green tea caffeine", "kb_3")
        assert kb[0].document_id == "tea"
        events = fresh.parts.core.event_log.events(kind="memory.imported")
        assert len(events) == 1
        payload = dict(events[0].payload)
        assert payload["counts"]["items"] == report.counts["items"]
        assert payload["pinned"] == [{"kind": "fact", "entry_id": ids["pinned"]}]
        assert "jazz" not in json.dumps(payload), "counts and ids only, never a text"
    finally:
        fresh.close()


def test_import_refuses_a_non_empty_memory_unless_merge(engine: Engine, tmp_path: Path) -> None:
    _learn(engine)
    folder = tmp_path / "export"
    engine.memory.export(folder)
    before = entries(engine)
    with pytest.raises(MemoryInputError, match=r"not empty.*nothing was imported"):
        engine.memory.import_(folder)
    merged = engine.memory.import_(folder, merge=True)
    assert sum(merged.counts.values()) == 0, merged
    assert merged.skipped["user_facts"] == 3
    assert entries(engine) == before


def _broken(folder: Path, edit: Any) -> None:
    path = folder / "rilai-memory.json"
    path.write_text(edit(path.read_text()))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t[: len(t) // 2], r"not valid JSON \(line \d+.*truncated"),
        (lambda t: t.replace('"version": 1', '"version": 2'), "version 2.*newer Rilai"),
        (lambda t: t.replace('"rilai-memory"', '"something-else"'), "not a Rilai memory export"),
        (lambda t: t.replace('"confidence": 0.7', '"confidence": 7'), r"items\[\d+\]\.confidence"),
        (lambda t: t.replace('"category": "preference"', '"category": "x"'), r"user_facts\[\d+\]"),
    ],
)
def test_a_wrong_or_damaged_file_says_why_and_imports_nothing(
    engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    edit: Any,
    message: str,
) -> None:
    _learn(engine)
    folder = tmp_path / "export"
    engine.memory.export(folder)
    engine.close()
    _broken(folder, edit)
    fresh = _reopen_elsewhere(monkeypatch, tmp_path, "fresh-home")
    try:
        with pytest.raises(MemoryInputError, match=message) as err:
            fresh.memory.import_(folder)
        assert "nothing was imported" in str(err.value)
        assert entries(fresh) == set()
        assert fresh.parts.core.event_log.events(kind="memory.imported") == []
    finally:
        fresh.close()


def test_a_missing_category_page_imports_nothing(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _learn(engine)
    folder = tmp_path / "export"
    engine.memory.export(folder)
    engine.close()
    (folder / "categories" / "biography.md").unlink()
    fresh = _reopen_elsewhere(monkeypatch, tmp_path, "fresh-home")
    try:
        with pytest.raises(MemoryInputError, match=r"biography\.md is missing"):
            fresh.memory.import_(folder)
        assert entries(fresh) == set()
        assert not list(fresh.parts.core.paths.categories_dir.glob("*.md"))
    finally:
        fresh.close()
