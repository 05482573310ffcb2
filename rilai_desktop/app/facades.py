"""What a client may do with memory, nudges and settings through the Engine.

Reads go straight to the stores; every write runs on the engine's one worker, so it never
interleaves with a turn. The facades hold no state of their own: the window, the memory
browser and the API all see the same memory, controls and settings file.
"""

from __future__ import annotations

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
        self, manager: MemoryManager | None, worker: Worker, db_path: Path | None = None
    ) -> None:
        self._manager, self._worker, self._db_path = manager, worker, db_path
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

    def edit(self, item_id: str, text: str) -> MemoryItem:
        memory = self._memory()
        return self._worker.call(lambda: memory.update_item(item_id, content=text))

    def forget(self, item_id: str) -> bool:
        memory = self._memory()
        return self._worker.call(lambda: memory.forget_item(item_id))

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
