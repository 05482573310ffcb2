"""What the memory browser shows at one moment, read in one go off the GUI thread: every
entry (or what a search across all of memory found), the pages, and the global switch.

Read by the bridge's ``load_memory`` on a helper thread; the browser only displays it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rilai_desktop.memory.entries import ENTRY_KINDS

if TYPE_CHECKING:
    from rilai_desktop.memory.entries import MemoryEntry, MemoryPage

PER_KIND = 500  # the newest of each kind; the search field reaches the rest


@dataclass(frozen=True)
class MemorySnapshot:
    query: str
    entries: list[MemoryEntry] = field(default_factory=list)
    pages: list[MemoryPage] = field(default_factory=list)
    recording_paused: bool = False
    available: bool = True


def _page_matches(page: MemoryPage, words: list[str]) -> bool:
    text = f"{page.name}\n{page.markdown}".casefold()
    return all(w in text for w in words)


def read_snapshot(memory: Any, query: str) -> MemorySnapshot:
    """``memory`` is the Engine's ``MemoryFacade``. With ``query``: the retrieval a turn
    uses across all entries, and the pages holding every word."""
    if not memory.available:
        return MemorySnapshot(query, available=False)
    paused = bool(getattr(memory, "recording_paused", False))
    pages = memory.pages()
    if query.strip():
        words = [w.casefold() for w in query.split()]
        return MemorySnapshot(
            query,
            memory.search_all(query, limit=200),
            [p for p in pages if _page_matches(p, words)],
            paused,
        )
    entries = [e for kind in ENTRY_KINDS for e in memory.entries(kind, limit=PER_KIND)]
    return MemorySnapshot(query, entries, pages, paused)
