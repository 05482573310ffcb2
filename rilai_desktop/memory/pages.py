"""The memory that is a document rather than a row, as pages for the memory browser: each
category's markdown (the same ``categories/<name>.md`` the person can open on disk), the
journal's days and its long-term notes, and a summary of each knowledge base.

The journal's day files are JSON (which agent tasks ran in which session, for how long);
they are shown as markdown so the person can read them, and the file's path goes with
them so they can open the real thing.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from rilai_desktop.memory.browse import MemoryBrowser
from rilai_desktop.memory.entries import MemoryPage
from rilai_desktop.memory.journal import Journal
from rilai_desktop.memory.journal_format import DailyMemory

MAX_JOURNAL_DAYS = 60


def _when(value: str | None) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def _mtime(path: Path) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
    except OSError:
        return None


def category_pages(browser: MemoryBrowser, folder: Path) -> list[MemoryPage]:
    return [
        MemoryPage(
            kind="category",
            name=row.name,
            markdown=row.markdown_content or f"# {row.name}\n\n{row.description}\n",
            path=(folder / f"{row.name}.md") if (folder / f"{row.name}.md").is_file() else None,
            updated_at=_when(row.updated_at),
        )
        for row in browser.categories()
    ]


def journal_pages(journal: Journal) -> list[MemoryPage]:
    """Each agent's long-term notes, then its days, newest first."""
    pages: list[MemoryPage] = []
    for agent in journal.agents():
        long_term = journal.long_term_path(agent)
        if long_term.is_file():
            text = long_term.read_text(encoding="utf-8", errors="replace")
            pages.append(
                MemoryPage("journal", f"{agent}: long-term", text, long_term, _mtime(long_term))
            )
        daily = journal.memory_dir(agent) / "daily"
        days = sorted(daily.glob("????-??-??.json"), reverse=True)[:MAX_JOURNAL_DAYS]
        for path in days:
            try:
                memory = journal.read_daily(agent, path.stem)
            except Exception as exc:  # a corrupt day is shown as such, not hidden
                text = f"# {path.stem}\n\nThis day's file cannot be read: {exc}\n"
            else:
                text = _day_markdown(path.stem, memory)
            pages.append(MemoryPage("journal", f"{agent}: {path.stem}", text, path, _mtime(path)))
    return pages


def _day_markdown(day: str, memory: DailyMemory | None) -> str:
    lines = [f"# {day}", ""]
    if memory is not None and memory.summary:
        lines += [memory.summary, ""]
    sessions = memory.sessions if memory is not None else []
    for session in sessions:
        lines.append(f"## Session {session.id}, {session.started_at:%H:%M} UTC")
        for task in session.tasks:
            took = f", {task.duration_ms} ms" if task.duration_ms is not None else ""
            error = f" ({task.error})" if task.error else ""
            lines.append(f"- {task.type}: {task.status}{took}{error}")
        lines.append("")
    if not sessions:
        lines.append("Nothing was recorded this day.")
    return "\n".join(lines) + "\n"


def knowledge_base_pages(browser: MemoryBrowser) -> list[MemoryPage]:
    pages: list[MemoryPage] = []
    for name, count, updated, docs in browser.knowledge_bases():
        noun = "document" if count == 1 else "documents"
        lines = [f"# {name}", "", f"{count} {noun}.", ""]
        lines += [f"- {d}" for d in docs]
        if count > len(docs):
            lines.append(f"- … and {count - len(docs)} more")
        pages.append(
            MemoryPage("knowledge_base", name, "\n".join(lines) + "\n", None, _when(updated))
        )
    return pages


def memory_pages(
    browser: MemoryBrowser, categories_dir: Path, journal: Journal
) -> list[MemoryPage]:
    """Categories, the journal, the knowledge bases (in that order)."""
    return [
        *category_pages(browser, categories_dir),
        *journal_pages(journal),
        *knowledge_base_pages(browser),
    ]
