"""The append-only event log: the truth of every turn.

Events are appended one at a time or in batches; the log assigns ``seq`` within each
(session_id, turn_id) inside the write transaction, so two writers can never collide.
Every event is validated (kind, envelope, typed payload, JSON) before the transaction opens,
so a bad event writes nothing. Replays return events in (turn_id, seq) order exactly as
they were appended. On open, a turn that never reached TURN_COMPLETED and belongs to no
live process is marked with a TURN_ABORTED event, so it is never replayed as complete.
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from pydantic import ValidationError

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.errors import EventPayloadError, UnknownEventKindError
from rilai_desktop.store import file_upkeep
from rilai_desktop.store._writer_lock import WriterLock
from rilai_desktop.store.db import begin_immediate, connect, integrity_check, translate

log = logging.getLogger(__name__)
_T = TypeVar("_T")

_KINDS: dict[str, EventKind] = {k.value: k for k in EventKind}
_COLUMNS = "session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload, schema_version"
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_OPEN_TURNS = """
SELECT s.session_id, s.turn_id,
       (SELECT MAX(e.seq) FROM events e
         WHERE e.session_id = s.session_id AND e.turn_id = s.turn_id) AS last_seq
  FROM events s
 WHERE s.kind = 'turn_started'
   AND NOT EXISTS (SELECT 1 FROM events c
                    WHERE c.kind IN ('turn_completed', 'turn_aborted')
                      AND c.session_id = s.session_id AND c.turn_id = s.turn_id)
 ORDER BY s.id
"""


class EventDraft(NamedTuple):
    """An event to append; the log fills in ``seq`` (and the clocks, if not given)."""

    session_id: str
    turn_id: int
    kind: EventKind | str
    payload: Mapping[str, Any] | None = None
    ts_monotonic: float | None = None
    ts_wall: datetime | None = None


def coerce_kind(kind: EventKind | str) -> EventKind:
    if isinstance(kind, EventKind):
        return kind
    found = _KINDS.get(str(kind).lower()) or _KINDS.get(
        str(kind).lower().removeprefix("eventkind.")
    )
    if found is None:
        raise UnknownEventKindError(
            f"Unknown event kind {kind!r}; nothing was written",
            context={"kind": str(kind)},
            recovery_suggestions=["Valid kinds: " + ", ".join(sorted(_KINDS))],
        )
    return found


def _dump_payload(kind: EventKind, payload: Mapping[str, Any]) -> str:
    try:
        return json.dumps(payload, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EventPayloadError(
            f"Payload for {kind.value} is not JSON-serialisable: {exc}; nothing was written",
            context={"kind": kind.value},
            recovery_suggestions=[
                "Convert values to str/int/float/bool/list/dict before emitting",
                "NaN and infinity are not valid JSON: clamp or drop them",
            ],
        ) from None


_FIELDS = frozenset(EngineEvent.model_fields)
_new = object.__new__
_set = object.__setattr__


def _trusted_event(fields: dict[str, Any]) -> EngineEvent:
    """Build an EngineEvent from fields that were already validated, skipping validation.

    This is what ``model_construct`` does minus its per-field default handling, at a third
    of the cost; replay is the hot path. ``fields`` must hold every field.
    tests/store/test_event_log.py checks the result equals a validated EngineEvent.
    """
    event = _new(EngineEvent)
    _set(event, "__dict__", fields)
    _set(event, "__pydantic_fields_set__", _FIELDS)
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event


def _row_to_event(row: Sequence[Any]) -> EngineEvent:
    # Rows were validated when appended; rebuild without re-validating.
    return _trusted_event(
        {
            "session_id": row[0],
            "turn_id": row[1],
            "seq": row[2],
            "ts_monotonic": row[3],
            "ts_wall": datetime.fromisoformat(row[4]),
            "kind": _KINDS[row[5]],
            "payload": json.loads(row[6]),
            "schema_version": row[7],
        }
    )


class EventLog:
    """Append-only log of EngineEvents in one SQLite file (WAL)."""

    def __init__(
        self,
        path: Path | str,
        *,
        clock: Callable[[], float] = time.monotonic,
        readonly: bool = False,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._tx_depth = 0
        self._listeners: list[Callable[[EngineEvent], None]] = []
        self._stored: list[EngineEvent] = []  # written in the open transaction, not yet told
        self._conn = connect(self.path, readonly=readonly)
        self._writer = WriterLock(self.path)
        self.aborted_on_open: list[EngineEvent] = []
        if readonly:
            return
        try:
            if self._writer.acquire():
                self.aborted_on_open = self.mark_aborted_turns()
        except BaseException:
            self._writer.release()
            self._conn.close()
            raise
        finally:
            self._writer.settle()

    # ── lifecycle ──────────────────────────────────────────────────────────
    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._writer.release()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_listener(self, listener: Callable[[EngineEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every event once it is committed, in log order, on the
        writing thread (so keep it quick: hand the event on). Events of a transaction that
        rolls back are never told. A listener that raises is logged and skipped: it can
        never undo a write. Returns a function that removes the listener."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    def _tell(self) -> None:
        stored, self._stored = self._stored, []
        for event in stored:
            for listener in list(self._listeners):
                try:
                    listener(event)
                except Exception:
                    log.exception("an event listener failed on %s", event.kind.value)

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for stores that share this file (memory, context store)."""
        return self._conn

    # ── writing ────────────────────────────────────────────────────────────
    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
        *,
        ts_monotonic: float | None = None,
        ts_wall: datetime | None = None,
    ) -> EngineEvent:
        draft = EventDraft(session_id, turn_id, kind, payload, ts_monotonic, ts_wall)
        return self.append_batch([draft])[0]

    def append_batch(self, drafts: Iterable[EventDraft]) -> list[EngineEvent]:
        """Validate every draft, then write them all in one transaction (all or nothing).

        The timestamps are taken under the writer lock, so the log's order is also their
        time order when several threads append at once (a wave's agents run two at a time).
        """
        with self._lock:
            prepared = [self._prepare(d) for d in drafts]
            if not prepared:
                return []
            with self.transaction():
                try:
                    return self._insert(prepared)
                except sqlite3.Error as exc:
                    raise translate(exc, self.path) from exc

    def start_turn(self, session_id: str, payload: Mapping[str, Any]) -> EngineEvent:
        """TURN_STARTED under the next turn id, read in its write transaction (2 writers)."""
        with self.transaction():
            n = self.last_turn_id(session_id) + 1
            return self.append(session_id, n, EventKind.TURN_STARTED, {**payload, "turn_id": n})

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the shared connection (BEGIN IMMEDIATE … COMMIT).

        Nested use joins the outer transaction, so memory writes and their events (or a
        whole turn's commit) land together or not at all. Other threads wait on the lock.
        """
        with self._lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield self._conn
                finally:
                    self._tx_depth -= 1
                return
            begin_immediate(self._conn, self.path)  # retried while another reader holds
            self._tx_depth = 1
            try:
                yield self._conn
            except BaseException:
                self._tx_depth = 0
                self._stored = []
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._tx_depth = 0
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                self._stored = []
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise translate(exc, self.path) from exc
            if self._stored:
                self._tell()

    def _prepare(self, draft: EventDraft) -> tuple[EngineEvent, str]:
        kind = coerce_kind(draft.kind)
        payload = dict(draft.payload or {})
        fields: dict[str, Any] = {
            "session_id": draft.session_id,
            "turn_id": draft.turn_id,
            "seq": 0,
            "ts_monotonic": self._clock() if draft.ts_monotonic is None else draft.ts_monotonic,
            "kind": kind,
            "payload": payload,
        }
        if draft.ts_wall is not None:
            fields["ts_wall"] = draft.ts_wall
        try:
            event = EngineEvent(**fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise EventPayloadError(
                f"Invalid {kind.value} event ({where or 'payload'}): {err['msg']}; "
                "nothing was written",
                context={"kind": kind.value},
            ) from None
        if not math.isfinite(event.ts_monotonic):
            raise EventPayloadError("ts_monotonic must be finite; nothing was written")
        return event, _dump_payload(kind, payload)

    def _insert(self, prepared: list[tuple[EngineEvent, str]]) -> list[EngineEvent]:
        next_seq: dict[tuple[str, int], int] = {}
        rows: list[tuple[Any, ...]] = []
        out: list[EngineEvent] = []
        for event, payload_json in prepared:
            key = (event.session_id, event.turn_id)
            seq = next_seq.get(key)
            if seq is None:
                last = self._conn.execute(
                    "SELECT MAX(seq) FROM events WHERE session_id = ? AND turn_id = ?", key
                ).fetchone()[0]
                seq = 0 if last is None else int(last) + 1
            next_seq[key] = seq + 1
            event = _trusted_event({**event.__dict__, "seq": seq})
            rows.append(
                (
                    event.session_id,
                    event.turn_id,
                    seq,
                    event.ts_monotonic,
                    event.ts_wall.isoformat(),
                    event.kind.value,
                    payload_json,
                    event.schema_version,
                )
            )
            out.append(event)
        self._conn.executemany(_INSERT, rows)
        if self._listeners:
            self._stored.extend(out)
        return out

    # ── aborted turns ──────────────────────────────────────────────────────
    def open_turns(self) -> list[tuple[str, int, int]]:
        """(session_id, turn_id, last_seq) of turns with no TURN_COMPLETED/TURN_ABORTED."""
        with self._lock:
            rows = self._conn.execute(_OPEN_TURNS).fetchall()
        return [(str(r[0]), int(r[1]), int(r[2])) for r in rows]

    def mark_aborted_turns(self) -> list[EngineEvent]:
        """Append TURN_ABORTED to every open turn. Only safe when no other process is
        mid-turn: the constructor calls it only when it holds the log alone."""
        drafts = [
            EventDraft(
                session_id,
                turn_id,
                EventKind.TURN_ABORTED,
                {"reason": "process ended before the turn completed", "last_seq": last_seq},
            )
            for session_id, turn_id, last_seq in self.open_turns()
        ]
        return self.append_batch(drafts)

    # ── reading ────────────────────────────────────────────────────────────
    def _select(
        self, where: str = "", params: Sequence[Any] = (), tail: str = ""
    ) -> list[EngineEvent]:
        sql = f"SELECT {_COLUMNS} FROM events {where} {tail}"
        with self._lock:
            try:
                rows = self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from exc
        return [_row_to_event(r) for r in rows]

    def replay_turn(self, session_id: str, turn_id: int) -> list[EngineEvent]:
        return self._select(
            "WHERE session_id = ? AND turn_id = ?", (session_id, turn_id), "ORDER BY seq"
        )

    def replay_session(self, session_id: str) -> list[EngineEvent]:
        return self._select("WHERE session_id = ?", (session_id,), "ORDER BY turn_id, seq")

    def replay_all(self, batch: int = 5000) -> Iterator[EngineEvent]:
        """Every event in append order, streamed in batches."""
        last_id = 0
        while True:
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT id, {_COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?",
                    (last_id, batch),
                ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _row_to_event(row[1:])
            last_id = rows[-1][0]

    def events(
        self,
        *,
        kind: EventKind | str | Sequence[EventKind | str] | None = None,
        session_id: str | None = None,
        turn_id: int | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[EngineEvent]:
        clauses: list[str] = []
        params: list[Any] = []
        if kind is not None:
            kinds = [kind] if isinstance(kind, EventKind | str) else list(kind)
            values = [coerce_kind(k).value for k in kinds]
            clauses.append(f"kind IN ({', '.join('?' * len(values))})")
            params.extend(values)
        if session_id is not None:
            clauses.append("session_id = ?")
            params.append(session_id)
        if turn_id is not None:
            clauses.append("turn_id = ?")
            params.append(turn_id)
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        tail = "ORDER BY id DESC" if newest_first else "ORDER BY id"
        if limit is not None:
            tail += " LIMIT ?"
            params.append(int(limit))
        return self._select(where, params, tail)

    def last_turn_id(self, session_id: str | None = None) -> int:
        """Highest turn id (of one session, or of all); 0 when there is none."""
        with self._lock:
            if session_id is None:
                row = self._conn.execute("SELECT MAX(turn_id) FROM events").fetchone()
            else:
                row = self._conn.execute(
                    "SELECT MAX(turn_id) FROM events WHERE session_id = ?", (session_id,)
                ).fetchone()
        return int(row[0] or 0)

    def session_ids(self) -> list[str]:
        """Every session id, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT session_id FROM events GROUP BY session_id ORDER BY MIN(id)"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def latest_session_id(self) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT session_id FROM events ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return None if row is None else str(row[0])

    def count(self, session_id: str | None = None) -> int:
        with self._lock:
            if session_id is None:
                row = self._conn.execute("SELECT COUNT(*) FROM events").fetchone()
            else:
                row = self._conn.execute(
                    "SELECT COUNT(*) FROM events WHERE session_id = ?", (session_id,)
                ).fetchone()
        return int(row[0])

    def counts_by_kind(self, session_id: str | None = None) -> dict[str, int]:
        with self._lock:
            if session_id is None:
                rows = self._conn.execute(
                    "SELECT kind, COUNT(*) FROM events GROUP BY kind ORDER BY kind"
                ).fetchall()
            else:
                rows = self._conn.execute(
                    "SELECT kind, COUNT(*) FROM events WHERE session_id = ? "
                    "GROUP BY kind ORDER BY kind",
                    (session_id,),
                ).fetchall()
        return {str(k): int(n) for k, n in rows}

    def integrity_check(self) -> str:
        with self._lock:
            return integrity_check(self._conn)

    def read(self, query: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run a read-only ``query`` on the shared connection under the log's lock (the
        readers in store/conversations.py); SQLite errors come back as ours."""
        with self._lock:
            try:
                return query(self._conn)
            except sqlite3.Error as exc:
                raise translate(exc, self.path) from exc

    # ── the file's upkeep (store/file_upkeep.py) ─────────────────────────────
    def optimize(self) -> dict[str, int] | None:
        """``PRAGMA optimize`` inside the write transaction, then a WAL checkpoint on a
        second connection; the checkpoint's figures, or None when not in WAL mode."""
        return file_upkeep.optimize(self.path, self.transaction)

    def backup(self, dest: Path) -> Path:
        """An online, integrity-checked copy of the database at ``dest`` (0600)."""
        return file_upkeep.backup(self.path, dest)

    # ── deleting (only on the user's explicit request: `rilai clear`) ────────
    def delete_session(self, session_id: str) -> int:
        with self._lock:
            cur = self._conn.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
        return int(cur.rowcount)

    def delete_all(self) -> int:
        with self._lock:
            cur = self._conn.execute("DELETE FROM events")
            self._conn.execute("VACUUM")
        return int(cur.rowcount)
