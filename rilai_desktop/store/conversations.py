"""Past conversations and search over their messages, read from the event log's file.

The conversations are the sessions with at least one completed turn, read from ``events``
through its ``(kind, session_id, turn_id)`` index. The messages are ``message_search``
(migration 0005), the FTS5 projection of what each conversation shows — the person's
words, Rilai's replies, the nudges seen inline — kept in step with the log by triggers,
so search is one ``MATCH`` ranked by bm25, never a Python loop over the log.

A person's query is never FTS5 syntax: each word becomes a quoted prefix term (``"word"*``)
and the terms must all match, so ``"``, ``AND``, ``*`` or ``NEAR(`` are just words to look
for and can never raise a syntax error.

The functions take a connection; :class:`Conversations` runs them on an ``EventLog``'s
shared connection under its lock (``EventLog.read``), so any thread may call it.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rilai_desktop.store.event_log import EventLog

TITLE_CHARS = 60
PREVIEW_CHARS = 80
MARK = ("«", "»")  # around each match in a snippet: readable as plain text and read aloud
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_CONVERSATIONS = """
WITH done AS (
    SELECT c.session_id, c.turn_id, c.ts_wall, c.payload
      FROM events c
     WHERE c.kind = 'turn_completed'
       AND EXISTS (SELECT 1 FROM events s WHERE s.kind = 'turn_started'
                      AND s.session_id = c.session_id AND s.turn_id = c.turn_id)
), sessions AS (
    SELECT session_id, COUNT(*) AS turns, MIN(turn_id) AS first_turn,
           MAX(turn_id) AS last_turn, MAX(ts_wall) AS last_active
      FROM done GROUP BY session_id
)
SELECT x.session_id, x.turns, x.last_active,
       (SELECT s.ts_wall FROM events s WHERE s.kind = 'turn_started'
           AND s.session_id = x.session_id AND s.turn_id = x.first_turn) AS started,
       (SELECT json_extract(s.payload, '$.user_input') FROM events s
         WHERE s.kind = 'turn_started'
           AND s.session_id = x.session_id AND s.turn_id = x.first_turn) AS title,
       (SELECT json_extract(d.payload, '$.response') FROM done d
         WHERE d.session_id = x.session_id AND d.turn_id = x.last_turn) AS preview
  FROM sessions x
 ORDER BY x.last_active DESC, x.session_id
 LIMIT ?
"""

_SEARCH = """
SELECT rowid, session_id, turn_id, role, ts_wall,
       snippet(message_search, 0, ?, ?, '…', 12), bm25(message_search)
  FROM message_search
 WHERE message_search MATCH ?
 ORDER BY bm25(message_search), rowid DESC
 LIMIT ?
"""

_MESSAGES = """
SELECT m.rowid, m.role, m.text, m.turn_id, m.ts_wall
  FROM events e JOIN message_search m ON m.rowid = e.id
 WHERE e.session_id = ? AND e.kind IN ('turn_started', 'turn_completed', 'proactive_nudge')
 ORDER BY e.id
"""


@dataclass(frozen=True)
class Conversation:
    """One past conversation: its session, when it began and was last answered, how many
    turns it has, its title (the person's first message, on one line, trimmed) and a
    preview of Rilai's last reply ('' when that turn stayed quiet)."""

    session_id: str
    started: datetime
    last_active: datetime
    turns: int
    title: str
    preview: str


@dataclass(frozen=True)
class MessageHit:
    """One message that matches a search: where it is (session, turn, role: ``user``,
    ``assistant`` or ``nudge``), when it was said, a snippet with each match between
    ``MARK``s, and its bm25 rank (lower is better). ``message_id`` is the id of the event
    its words come from, as in :class:`Message`."""

    message_id: int
    session_id: str
    turn_id: int
    role: str
    ts: datetime
    snippet: str
    rank: float


@dataclass(frozen=True)
class Message:
    """One message of a conversation, as the conversation shows it (log order);
    ``message_id`` is the id of the event its words come from."""

    message_id: int
    role: str
    text: str
    turn_id: int
    ts: datetime


def one_line(text: str | None, limit: int) -> str:
    """``text`` on one line, whitespace collapsed, cut at ``limit`` characters with '…'."""
    flat = _SPACE.sub(" ", text or "").strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def fts_query(text: str) -> str:
    """A person's words as an FTS5 query that cannot fail: every word a quoted prefix term
    (inner quotes doubled), all of them required; '' when there is no word. Control
    characters (a NUL ends an FTS5 string early) and lone surrogates are dropped."""
    text = _CONTROL.sub(" ", text.encode("utf-8", "ignore").decode("utf-8"))
    terms = ['"' + word.replace('"', '""') + '"*' for word in text.split()]
    return " ".join(terms)


def conversations(conn: sqlite3.Connection, limit: int = 200) -> list[Conversation]:
    """The conversations with at least one completed turn, most recently active first."""
    rows = conn.execute(_CONVERSATIONS, (max(0, int(limit)),)).fetchall()
    return [
        Conversation(
            session_id=str(sid),
            started=datetime.fromisoformat(started or last),
            last_active=datetime.fromisoformat(last),
            turns=int(turns),
            title=one_line(title if isinstance(title, str) else "", TITLE_CHARS),
            preview=one_line(preview if isinstance(preview, str) else "", PREVIEW_CHARS),
        )
        for sid, turns, last, started, title, preview in rows
    ]


def search_messages(
    conn: sqlite3.Connection, query: str, limit: int = 50, mark: tuple[str, str] = MARK
) -> list[MessageHit]:
    """The messages that hold every word of ``query`` (each as a prefix, accents folded),
    best bm25 first; nothing for a query with no word."""
    match = fts_query(query)
    if not match or limit <= 0:
        return []
    rows = conn.execute(_SEARCH, (mark[0], mark[1], match, int(limit))).fetchall()
    return [
        MessageHit(
            message_id=int(rowid),
            session_id=str(sid),
            turn_id=int(turn),
            role=str(role),
            ts=datetime.fromisoformat(ts),
            snippet=str(snippet),
            rank=float(rank),
        )
        for rowid, sid, turn, role, ts, snippet, rank in rows
    ]


def messages(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    """Every message of one conversation, in log order (all of it, not the prompt's
    window of recent history)."""
    rows = conn.execute(_MESSAGES, (session_id,)).fetchall()
    return [
        Message(
            message_id=int(rowid),
            role=str(role),
            text=str(text),
            turn_id=int(turn),
            ts=datetime.fromisoformat(ts),
        )
        for rowid, role, text, turn, ts in rows
    ]


class Conversations:
    """The readers above over one event log (thread-safe: the log's lock)."""

    def __init__(self, log: EventLog) -> None:
        self._log = log

    def recent(self, limit: int = 200) -> list[Conversation]:
        return self._log.read(lambda conn: conversations(conn, limit))

    def search(self, query: str, limit: int = 50) -> list[MessageHit]:
        return self._log.read(lambda conn: search_messages(conn, query, limit))

    def messages(self, session_id: str) -> list[Message]:
        return self._log.read(lambda conn: messages(conn, session_id))

    def exists(self, session_id: str) -> bool:
        """Whether the log holds any event of ``session_id``."""
        row = self._log.read(
            lambda conn: conn.execute(
                "SELECT 1 FROM events WHERE session_id = ? LIMIT 1", (session_id,)
            ).fetchone()
        )
        return row is not None
