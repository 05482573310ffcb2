"""What a client may do with memory, nudges and settings through the Engine.

Reads go straight to the stores; every write runs on the engine's one worker, so it never
interleaves with a turn. The facades hold no state of their own: the window, the memory
browser and the API all see the same memory, controls and settings file.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.app.worker import Worker
from rilai_desktop.config import LoadedSettings, Settings, load_settings, set_in_file
from rilai_desktop.errors import MemoryUnavailableError
from rilai_desktop.paths import Paths

if TYPE_CHECKING:
    from rilai_desktop.daemon.nudges import ControlState, NudgeControls
    from rilai_desktop.memory.browse import MemoryBrowser
    from rilai_desktop.memory.entries import EntryKind, MemoryEntry, MemoryPage
    from rilai_desktop.memory.manager import MemoryManager
    from rilai_desktop.memory.transfer import ExportReport, ImportReport
    from rilai_desktop.memory.types import MemoryItem, MemoryStats, RetrievalResult


class MemoryFacade:
    """Memory for clients: search (the retrieval a turn uses), browsing through the SQLModel
    tables (``memory/browse.py``, a read-only connection), and edits on the worker."""

    def __init__(
        self,
        manager: MemoryManager | None,
        worker: Worker,
        db_path: Path | None = None,
        *,
        settings_file: Path | None = None,
    ) -> None:
        self._manager, self._worker, self._db_path = manager, worker, db_path
        self._settings_file = settings_file  # where "memory paused" is kept (memory.paused)
        self._browser: MemoryBrowser | None = None

    @property
    def available(self) -> bool:
        return self._manager is not None

    def _memory(self) -> MemoryManager:
        if self._manager is None:
            raise MemoryUnavailableError("Memory is not open in this engine")
        return self._manager

    # reads, on the worker too: the FAISS index is not safe to read while a turn adds to
    # it, and a read racing the engine's close would touch a freed index (a crash, not an
    # error); a read asked for during a turn waits for it
    def search(self, query: str, k: int = 10, category: str | None = None) -> RetrievalResult:
        """Lexical + dense search (no model call), as recall does in a turn."""
        memory = self._memory()
        return self._worker.call(lambda: memory.retrieve(query, "rag", k, category))

    def item(self, item_id: str) -> MemoryItem | None:
        memory = self._memory()
        return self._worker.call(lambda: memory.get_item(item_id))

    def categories(self) -> list[str]:
        memory = self._memory()
        return self._worker.call(lambda: [c.name for c in memory.list_categories()])

    def stats(self) -> MemoryStats:
        memory = self._memory()
        return self._worker.call(memory.get_stats)

    @property
    def browse(self) -> MemoryBrowser:
        """Items, user facts, episodes, goals and categories, page by page."""
        self._memory()
        if self._browser is None:
            from rilai_desktop.memory.browse import MemoryBrowser

            if self._db_path is None:
                raise MemoryUnavailableError("This engine has no database file to browse")
            self._browser = MemoryBrowser(self._db_path)
        return self._browser

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = None

    # writes (on the worker)
    def remember(self, text: str, category: str | None = None) -> MemoryItem:
        memory = self._memory()
        return self._worker.call(lambda: memory.remember(text, category))

    def edit_item(self, item_id: str, text: str) -> MemoryItem:
        """The item edited (the older ``edit(item_id, text)``): the item as it is now."""
        memory = self._memory()

        def run() -> MemoryItem:
            memory.edit_entry("item", item_id, text)
            item = memory.get_item(item_id)
            assert item is not None
            return item

        return self._worker.call(run)

    def forget(self, item_id: str) -> bool:
        """Delete one item (the older name of ``delete("item", item_id)``)."""
        return self.delete("item", item_id)

    # ── the person's controls (issue 20; memory/operations/entry_changes.py) ──
    def edit(self, kind: str, entry_id: str, text: str | None = None) -> MemoryEntry:
        """Edit any entry: the correction is what recall finds from now on. The older
        ``edit(item_id, text)`` still works (an item)."""
        if text is None:  # edit(item_id, text)
            kind, entry_id, text = "item", kind, entry_id
        memory, k = self._memory(), _kind(kind)
        new_text = text

        def run() -> MemoryEntry:
            memory.edit_entry(k, entry_id, new_text)
            return self._read(memory, k, entry_id)

        return self._worker.call(run)

    def delete(self, kind: EntryKind, entry_id: str) -> bool:
        memory, k = self._memory(), _kind(kind)
        return self._worker.call(lambda: memory.delete_entry(k, entry_id))

    def delete_many(self, refs: Sequence[tuple[EntryKind, str]]) -> int:
        memory = self._memory()
        wanted = [(_kind(k), e) for k, e in refs]
        return self._worker.call(lambda: memory.entries.delete_many(wanted))

    def set_paused(self, kind: EntryKind, entry_id: str, paused: bool) -> MemoryEntry:
        memory, k = self._memory(), _kind(kind)

        def run() -> MemoryEntry:
            memory.set_entry_paused(k, entry_id, paused)
            return self._read(memory, k, entry_id)

        return self._worker.call(run)

    def set_pinned(self, kind: EntryKind, entry_id: str, pinned: bool) -> MemoryEntry:
        memory, k = self._memory(), _kind(kind)

        def run() -> MemoryEntry:
            memory.set_entry_pinned(k, entry_id, pinned)
            return self._read(memory, k, entry_id)

        return self._worker.call(run)

    def not_relevant(self, kind: EntryKind, entry_id: str, query: str) -> None:
        memory, k = self._memory(), _kind(kind)
        self._worker.call(lambda: memory.entries.not_relevant(k, entry_id, query))

    @property
    def recording_paused(self) -> bool:
        """The global "memory paused" switch: while on, turns neither recall nor commit."""
        return self._manager is not None and self._manager.controls.recording_paused

    def set_recording_paused(self, paused: bool) -> None:
        """Persisted as the setting ``memory.paused`` and logged as ``memory.switched``."""
        memory = self._memory()

        def run() -> None:
            if self._settings_file is not None:
                set_in_file(self._settings_file, "memory.paused", "true" if paused else "false")
            memory.controls.recording_paused = bool(paused)
            memory.entries.log_switch(bool(paused))

        self._worker.call(run)

    def forget_everything(self) -> dict[str, int]:
        """Memory, its files and index, and the conversations it came from, gone from disk
        (the knowledge bases are kept); the counts removed."""
        memory = self._memory()
        return self._worker.call(memory.forget_everything)

    @staticmethod
    def _read(memory: MemoryManager, kind: EntryKind, entry_id: str) -> MemoryEntry:
        from rilai_desktop.memory.entries import get_entry

        found = get_entry(memory.connection, kind, entry_id)
        assert found is not None
        return found

    # ── entries as the person sees them (issue 20: the memory browser) ─────────
    # browse reads on the read-only connection (never waiting on a turn); search_all on
    # the worker, since it reads the FAISS index
    def entries(
        self,
        kind: EntryKind | None = None,
        *,
        query: str = "",
        limit: int = 500,
        include_paused: bool = True,
    ) -> list[MemoryEntry]:
        """Newest first, each with where it came from and its controls; ``query`` keeps
        those holding every word (FTS5 for items, LIKE for the small tables)."""
        return self.browse.entries(kind, query=query, limit=limit, include_paused=include_paused)

    def entry(self, kind: EntryKind, entry_id: str) -> MemoryEntry | None:
        return self.browse.entry(kind, entry_id)

    def search_all(self, query: str, limit: int = 50) -> list[MemoryEntry]:
        """The retrieval a turn uses (FTS5 + the vector index, "rag") for items, then
        the words in facts, episodes and threads/goals; paused entries included (the
        browser marks them), superseded and deleted ones never."""
        if not query.strip():
            return []
        memory = self._memory()
        k = max(1, min(limit, 50))
        found = self._worker.call(lambda: memory.retrieve(query, "rag", k, None))
        browse = self.browse
        items = browse.entries_by_id("item", [i.item_id for i in found.items if i.is_valid])
        seen = {e.entry_id for e in items}
        items += [e for e in browse.entries("item", query=query, limit=k) if e.entry_id not in seen]
        kinds: tuple[EntryKind, ...] = ("fact", "episode", "goal")
        rest = [e for kind in kinds for e in browse.entries(kind, query=query, limit=k)]
        return (items + rest)[:limit]

    def pages(self) -> list[MemoryPage]:
        """Categories (their markdown and the file on disk), the journal's days, the
        knowledge bases."""
        from rilai_desktop.memory.pages import memory_pages

        memory = self._memory()
        return memory_pages(self.browse, memory.category_layer.folder, memory.journal)

    # export and import (memory/transfer/; docs/memory-export.md), on the worker
    def export(self, folder: Path) -> ExportReport:
        """Everything memory holds but the paused entries, to ``folder``."""
        from rilai_desktop import __version__

        memory = self._memory()
        return self._worker.call(lambda: memory.export_all(folder, app_version=__version__))

    def import_(self, folder: Path, *, merge: bool = False) -> ImportReport:
        """An export folder into this memory (refused when it is not empty, unless merge)."""
        memory = self._memory()
        return self._worker.call(lambda: memory.import_all(folder, merge=merge))


def _kind(kind: str) -> EntryKind:
    from rilai_desktop.memory.controls import check_kind

    return check_kind(kind)


class NudgesFacade:
    """The person's controls over proactive check-ins (the same file `rilai nudges` uses)."""

    def __init__(self, controls: NudgeControls, worker: Worker) -> None:
        self._controls, self._worker = controls, worker

    def state(self) -> ControlState:
        return self._controls.state()

    def snooze(self, now: datetime, duration: timedelta) -> ControlState:
        return self._worker.call(lambda: self._controls.snooze(now, duration))

    def mute_for_day(self, now: datetime) -> ControlState:
        return self._worker.call(lambda: self._controls.mute_for_day(now))

    def unmute(self) -> ControlState:
        return self._worker.call(self._controls.unmute)


class SettingsFacade:
    """The settings in effect, and changes written to settings.toml (validated first)."""

    def __init__(self, paths: Paths, settings: Settings, worker: Worker) -> None:
        self._paths, self._settings, self._worker = paths, settings, worker

    @property
    def current(self) -> Settings:
        """The settings this engine was opened with."""
        return self._settings

    def saved(self) -> LoadedSettings:
        """What settings.toml holds now (defaults filled in; no environment, no flags)."""
        return load_settings(self._paths.settings_file, {}, {})

    def set(self, key: str, value: str) -> Any:
        """Write ``key = value`` to settings.toml; a bad key or value changes nothing."""
        path = self._paths.settings_file
        return self._worker.call(lambda: set_in_file(path, key, value))
