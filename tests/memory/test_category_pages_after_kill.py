"""A kill between a category page's write and its transaction's COMMIT leaves a page
SQLite rolled back (found by the crash proof, tests/reliability/test_crash.py): the next
open puts every page back in line with SQLite."""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager
from rilai_desktop.memory.types import Turn
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.store import EventLog


def _open(home: Path) -> tuple[EventLog, MemoryManager]:
    log = EventLog(home / "rilai.db")
    manager = MemoryManager(
        log,
        HashEmbedder(),
        storage_dir=home / "memory",
        categories_dir=home / "categories",
        events=log,
        config=MemoryConfig(storage_dir=home / "memory", auto_consolidate=False),
    )
    return log, manager


def test_pages_a_killed_transaction_left_are_put_back_on_open(tmp_path: Path) -> None:
    home = ensure_private_dir(tmp_path / "data")
    log, manager = _open(home)
    with log:
        manager.open()
        manager.ingest_turns(
            [Turn(id="t1", speaker="user", text="I love jazz music on rainy evenings")],
            mode="rules",
        )
        pages = {c.name: c.markdown_content for c in manager.list_categories()}
        manager.close()
    assert pages and "goals" not in pages
    folder = home / "categories"
    name = sorted(pages)[0]
    # what a kill -9 before COMMIT leaves: a page SQLite rolled back, a category SQLite
    # never got, and the temporary file of a page write cut short
    (folder / f"{name}.md").write_text("# rolled back\n", encoding="utf-8")
    (folder / "goals.md").write_text("# Goals\n\n*No items yet.*\n", encoding="utf-8")
    (folder / f".{name}-k9x2ab3c.md").write_text("# half", encoding="utf-8")
    (folder / "My notes.md").write_text("the person's own file", encoding="utf-8")

    log, manager = _open(home)
    with log:
        manager.open()
        manager.close()
    assert (folder / f"{name}.md").read_text(encoding="utf-8") == pages[name]
    assert not (folder / "goals.md").exists()
    assert not (folder / f".{name}-k9x2ab3c.md").exists()
    assert (folder / "My notes.md").read_text(encoding="utf-8") == "the person's own file"
    for page, content in pages.items():
        assert (folder / f"{page}.md").read_text(encoding="utf-8") == content


def test_a_missing_page_is_written_again_on_open(tmp_path: Path) -> None:
    home = ensure_private_dir(tmp_path / "data")
    log, manager = _open(home)
    with log:
        manager.open()
        manager.ingest_turns(
            [Turn(id="t1", speaker="user", text="My favourite food is lentil soup")],
            mode="rules",
        )
        pages = {c.name: c.markdown_content for c in manager.list_categories()}
        manager.close()
    for page in pages:
        (home / "categories" / f"{page}.md").unlink()
    log, manager = _open(home)
    with log:
        manager.open()
        manager.close()
    for page, content in pages.items():
        assert (home / "categories" / f"{page}.md").read_text(encoding="utf-8") == content
