"""Seed 002 in the running app: each turn leaves its artefacts in the context store (with
an expiry) and a session entry in the day's journal; consolidated insights are promoted to
long-term.md.

The journal belongs to one agent, Rilai itself (:data:`AGENT_ID`): its daily file lists the
sessions of that day and, per session, a ``turn`` task for each turn with its duration, its
status and the id of the context item that holds what the turn produced (the agents'
outputs, what memory extracted). The context item expires after ``keep_days``; the
daemon's maintenance deletes expired items and daily files past their retention.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from rilai_desktop.memory.context_store import ContextItem, ContextStore
from rilai_desktop.memory.journal import Journal
from rilai_desktop.memory.journal_format import DailySessionEntry, DailyTaskEntry

AGENT_ID = "rilai"
TURN_CONTEXT_TYPE = "turn.artefacts"
KEEP_DAYS = 14
_FOOTNOTE = re.compile(r"\s*\[\^\d+\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s")


class TurnJournal:
    def __init__(
        self, contexts: ContextStore, journal: Journal, now: Callable[[], dt.datetime]
    ) -> None:
        self.contexts, self.journal, self._now = contexts, journal, now

    def record_turn(
        self,
        session_id: str,
        turn_id: int,
        *,
        started_at: dt.datetime,
        duration_ms: float,
        artefacts: Mapping[str, Any],
        error: str | None = None,
        keep_days: int = KEEP_DAYS,
    ) -> ContextItem:
        """The turn's artefacts saved (expiring), then its task added to the day's entry
        for the session. Returns the context item."""
        now = self._now()
        item = self.contexts.save(
            TURN_CONTEXT_TYPE,
            dict(artefacts),
            agent_id=AGENT_ID,
            metadata={"session_id": session_id, "turn_id": turn_id},
            expires_at=now + dt.timedelta(days=max(1, keep_days)),
        )
        task = DailyTaskEntry(
            type="turn",
            output_context_id=item.id,
            duration_ms=max(0, round(duration_ms)),
            status="error" if error else "success",
            error=error,
        )
        self.journal.record_to_daily(
            AGENT_ID, DailySessionEntry(id=session_id, started_at=started_at, tasks=[task])
        )
        return item

    def promote_page(self, category: str, page: str) -> bool:
        """The first fact of a consolidated category page (its first bullet, else its first
        sentence of prose), promoted to long-term.md ("Promoted: category: …"); False when
        the page holds nothing to promote or the insight is there already."""
        insight = page_insight(page)
        if not insight:
            return False
        return self.journal.promote_to_long_term(AGENT_ID, f"{category}: {insight}")


def page_insight(page: str) -> str:
    """The first fact a category page states: skips its title, description (italics),
    headings, the sources and the footer; footnote marks are dropped."""
    prose = ""
    for line in page.splitlines():
        text = line.strip()
        if text.startswith("## Sources") or text == "---":
            break
        if not text or text.startswith(("#", "*", "<!--", "[^")):
            continue
        text = _FOOTNOTE.sub("", text).strip()
        if text.startswith("- "):
            return text[2:].strip()[:300]
        prose = prose or _SENTENCE.split(text, maxsplit=1)[0][:300]
    return prose
