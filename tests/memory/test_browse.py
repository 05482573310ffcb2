"""Browsing memory through the SQLModel tables (memory/browse.py), beside MemoryManager's
writes on the event log's connection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.build import build_memory
from rilai_desktop.app.core import Core, build_core
from rilai_desktop.config import load_settings
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.browse import MemoryBrowser
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.memory.tables import MemoryItemRow
from rilai_desktop.memory.types import Turn
from rilai_desktop.paths import resolve_paths


@pytest.fixture
def stores(
    monkeypatch: pytest.MonkeyPatch, rilai_home: Path
) -> Iterator[tuple[Core, MemoryManager, MemoryBrowser]]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    memory = build_memory(core, with_models=False, auto_consolidate=False)
    browser = MemoryBrowser(paths.db_path)
    yield core, memory, browser
    browser.close()
    memory.close()
    core.close()


def test_items_are_typed_rows_newest_first_with_filters(
    stores: tuple[Core, MemoryManager, MemoryBrowser],
) -> None:
    _, memory, browser = stores
    first = memory.remember("My sister is called Ines.", "family")
    second = memory.remember("I like green tea.", "preferences")
    memory.ingest_turns([Turn(id="t1", speaker="user", text="I walked by the river today.")])
    rows = browser.items()
    assert all(isinstance(r, MemoryItemRow) for r in rows)
    assert [r.item_id for r in rows][:2] == [second.item_id, first.item_id]
    assert all(r.kind != "turn" for r in rows)  # turn records only on request
    assert any(r.kind == "turn" for r in browser.items(include_turns=True))
    assert [r.content for r in browser.items(category="family")] == ["My sister is called Ines."]
    assert browser.count_items(category="family") == 1
    memory.invalidate_item(first.item_id)
    assert browser.items(category="family") == []
    assert len(browser.items(category="family", include_invalid=True)) == 1
    assert {c.name for c in browser.categories()} >= {"family", "preferences"}


def test_pages_and_bad_pages(stores: tuple[Core, MemoryManager, MemoryBrowser]) -> None:
    _, memory, browser = stores
    for n in range(5):
        memory.remember(f"Fact number {n} about the garden.", "notes")
    page1 = browser.items(limit=2)
    page2 = browser.items(limit=2, offset=2)
    assert len(page1) == len(page2) == 2
    assert not {r.item_id for r in page1} & {r.item_id for r in page2}
    for limit, offset in ((0, 0), (501, 0), (10, -1)):
        with pytest.raises(MemoryInputError):
            browser.items(limit=limit, offset=offset)


def test_the_browser_reads_while_a_write_is_open(
    stores: tuple[Core, MemoryManager, MemoryBrowser],
) -> None:
    core, memory, browser = stores
    memory.remember("I play the cello.", "hobbies")
    with core.event_log.transaction():  # a turn's commit holds the writer
        assert [r.content for r in browser.items(category="hobbies")] == ["I play the cello."]


def test_the_browser_never_writes(stores: tuple[Core, MemoryManager, MemoryBrowser]) -> None:
    _, memory, browser = stores
    from sqlmodel import Session

    memory.remember("I play the cello.", "hobbies")
    (row,) = browser.items()
    row.content = "changed behind memory's back"
    with Session(browser._engine) as session, pytest.raises(Exception, match="readonly"):
        session.add(row)
        session.commit()
    assert [r.content for r in browser.items()] == ["I play the cello."]
