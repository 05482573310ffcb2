"""What the person can browse of their memory, read through the SQLModel classes of
``tables.py`` (the one typed definition of the memory tables, checked against the
migrations by ``tests/memory/test_tables.py``).

The browser opens its own read-only connection to the database file (WAL lets it read
while a turn writes), so paging through items never waits on a turn. Writes do not go
through here: every change to memory must also update the FTS5 index, the FAISS index and
the event log in the same transaction on the log's connection, which ``MemoryManager``
does with raw sqlite3 (docs/architecture.md, "sqlmodel").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlmodel import Session, col, create_engine, select

from rilai_desktop.errors import MemoryInputError, StorageError
from rilai_desktop.memory.entries import EntryKind, MemoryEntry
from rilai_desktop.memory.tables import (
    EpisodeRow,
    GoalRow,
    MemoryCategoryRow,
    MemoryItemRow,
    UserFactRow,
)

MAX_PAGE = 500


class MemoryBrowser:
    def __init__(self, db_path: Path | str) -> None:
        self.path = Path(db_path)
        uri = f"file:{self.path}?mode=ro"

        def connect() -> sqlite3.Connection:
            try:
                return sqlite3.connect(uri, uri=True, check_same_thread=False)
            except sqlite3.Error as exc:
                raise StorageError(f"Cannot open {self.path} to browse memory: {exc}") from exc

        self._engine: Engine = create_engine("sqlite://", creator=connect, poolclass=NullPool)

    def close(self) -> None:
        self._engine.dispose()

    @staticmethod
    def _page(limit: int, offset: int) -> None:
        if not 1 <= limit <= MAX_PAGE or offset < 0:
            raise MemoryInputError(
                f"a page holds 1-{MAX_PAGE} entries from offset 0 or more, "
                f"got limit {limit}, offset {offset}"
            )

    def items(
        self,
        *,
        category: str | None = None,
        include_turns: bool = False,
        include_invalid: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[MemoryItemRow]:
        """Items, newest first: the facts extracted or told (``include_turns`` adds the
        per-turn records of issue 17; ``include_invalid`` the superseded ones)."""
        self._page(limit, offset)
        query = select(MemoryItemRow)
        if category is not None:
            query = query.where(MemoryItemRow.category == category)
        if not include_turns:
            query = query.where(MemoryItemRow.kind != "turn")
        if not include_invalid:
            query = query.where(col(MemoryItemRow.invalid_at).is_(None))
        query = query.order_by(col(MemoryItemRow.created_at).desc(), col(MemoryItemRow.id).desc())
        with Session(self._engine) as session:
            return list(session.exec(query.offset(offset).limit(limit)).all())

    def count_items(self, *, category: str | None = None, include_turns: bool = False) -> int:
        query = select(func.count()).select_from(MemoryItemRow)
        query = query.where(col(MemoryItemRow.invalid_at).is_(None))
        if category is not None:
            query = query.where(MemoryItemRow.category == category)
        if not include_turns:
            query = query.where(MemoryItemRow.kind != "turn")
        with Session(self._engine) as session:
            return int(session.exec(query).one())

    def categories(self) -> list[MemoryCategoryRow]:
        with Session(self._engine) as session:
            rows = session.exec(select(MemoryCategoryRow).order_by(MemoryCategoryRow.name))
            return list(rows.all())

    def user_facts(self, *, limit: int = 50, offset: int = 0) -> list[UserFactRow]:
        """What Rilai knows about them, the best-evidenced first."""
        self._page(limit, offset)
        query = select(UserFactRow).order_by(
            col(UserFactRow.evidence_count).desc(), col(UserFactRow.last_confirmed).desc()
        )
        with Session(self._engine) as session:
            return list(session.exec(query.offset(offset).limit(limit)).all())

    def episodes(self, *, limit: int = 50, offset: int = 0) -> list[EpisodeRow]:
        self._page(limit, offset)
        query = select(EpisodeRow).order_by(col(EpisodeRow.timestamp).desc())
        with Session(self._engine) as session:
            return list(session.exec(query.offset(offset).limit(limit)).all())

    def goals(self, *, status: str | None = "open") -> list[GoalRow]:
        query = select(GoalRow)
        if status is not None:
            query = query.where(GoalRow.status == status)
        with Session(self._engine) as session:
            return list(session.exec(query.order_by(col(GoalRow.deadline))).all())

    # ── entries as the person sees them (issue 20: the memory browser) ─────────
    @contextmanager
    def _raw(self) -> Iterator[sqlite3.Connection]:
        """The read-only sqlite3 connection itself, for the joins of ``entry_reader``."""
        proxy = self._engine.raw_connection()
        try:
            conn = proxy.driver_connection
            assert isinstance(conn, sqlite3.Connection)
            yield conn
        finally:
            proxy.close()

    def entries(
        self,
        kind: EntryKind | None = None,
        *,
        query: str = "",
        limit: int = 500,
        include_paused: bool = True,
    ) -> list[MemoryEntry]:
        """Items (turn records included), facts, episodes, threads/goals: newest first,
        each with its source in words and its controls (``entry_reader.py``)."""
        from rilai_desktop.memory.entry_reader import EntryReader

        self._page(limit, 0)
        with self._raw() as conn:
            return EntryReader(conn).entries(
                kind, query=query, limit=limit, include_paused=include_paused
            )

    def entry(self, kind: EntryKind, entry_id: str) -> MemoryEntry | None:
        from rilai_desktop.memory.entry_reader import EntryReader

        with self._raw() as conn:
            return EntryReader(conn).entry(kind, entry_id)

    def entries_by_id(self, kind: EntryKind, entry_ids: list[str]) -> list[MemoryEntry]:
        """Those of ``entry_ids`` that exist, in that order."""
        from rilai_desktop.memory.entry_reader import EntryReader

        with self._raw() as conn:
            reader = EntryReader(conn)
            found = (reader.entry(kind, i) for i in entry_ids)
            return [e for e in found if e is not None]

    def knowledge_bases(self) -> list[tuple[str, int, str | None, list[str]]]:
        """(name, documents, last updated, the first documents' text) per knowledge base."""
        with self._raw() as conn:
            rows = conn.execute(
                "SELECT kb_name, count(*), max(updated_at) FROM kb_points"
                " GROUP BY kb_name ORDER BY kb_name"
            ).fetchall()
            out = []
            for name, count, updated in rows:
                docs = conn.execute(
                    "SELECT point_id, payload FROM kb_points WHERE kb_name = ?"
                    " ORDER BY updated_at DESC, point_id LIMIT 20",
                    (name,),
                ).fetchall()
                out.append((str(name), int(count), updated, [_doc_line(p, raw) for p, raw in docs]))
            return out


def _doc_line(point_id: str, raw: str) -> str:
    import json

    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {}
    text = ""
    if isinstance(payload, dict):
        text = next((str(v) for k, v in payload.items() if k in ("text", "content", "title")), "")
    flat = " ".join(text.split())
    return f"{point_id}: {flat[:160]}" if flat else str(point_id)
