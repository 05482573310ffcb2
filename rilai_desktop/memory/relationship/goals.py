"""Goals and open threads, with optional deadlines (``memory_goals``)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from rilai_desktop.memory._sql import dumps, sql_errors
from rilai_desktop.memory.relationship.checks import (
    GOAL_KINDS,
    GOAL_STATUSES,
    MAX_NOTES_CHARS,
    MAX_TITLE_CHARS,
    MAX_TURN_REFS,
    GoalKind,
    GoalStatus,
    _aware,
    _bad,
    _choice,
    _norm_title,
    _text,
    _ts,
    _turn_refs,
)
from rilai_desktop.memory.relationship.rows import _GOAL_COLS, _GOAL_FIELDS, UserGoal, _goal
from rilai_desktop.memory.relationship.store import RelationshipStore


class GoalMemory(RelationshipStore):
    """Add, read, list, edit, close and delete goals and open threads."""

    def _insert_goal(self, tx: sqlite3.Connection, goal: UserGoal) -> None:
        tx.execute(
            f"INSERT INTO memory_goals ({_GOAL_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                goal.id,
                goal.kind,
                goal.title,
                goal.status,
                None if goal.deadline is None else _ts(goal.deadline),
                goal.notes,
                dumps(goal.source_turn_ids),
                _ts(goal.created_at),
                _ts(goal.updated_at),
            ),
        )

    def _new_goal(
        self,
        title: Any,
        kind: Any,
        deadline: Any,
        notes: Any,
        source_turn_ids: Any,
    ) -> UserGoal:
        now = self._now()
        return UserGoal(
            id=str(uuid.uuid4()),
            kind=_choice("kind", kind, GOAL_KINDS),
            title=_text("title", title, max_chars=MAX_TITLE_CHARS),
            status="open",
            deadline=None if deadline is None else _aware("deadline", deadline),
            notes=_text("notes", notes, max_chars=MAX_NOTES_CHARS, allow_empty=True),
            source_turn_ids=_turn_refs(source_turn_ids),
            created_at=now,
            updated_at=now,
        )

    def add_goal(
        self,
        title: str,
        *,
        kind: GoalKind = "goal",
        deadline: datetime | None = None,
        notes: str = "",
        source_turn_ids: Sequence[str | int] = (),
    ) -> UserGoal:
        goal = self._new_goal(title, kind, deadline, notes, source_turn_ids)
        with sql_errors("saving the goal"), self._db.transaction() as tx:
            self._insert_goal(tx, goal)
        return goal

    def get_goal(self, goal_id: str) -> UserGoal | None:
        with sql_errors("reading the goal"):
            row = self._db.connection.execute(
                f"SELECT {_GOAL_COLS} FROM memory_goals WHERE id = ?", (str(goal_id),)
            ).fetchone()
        return None if row is None else _goal(row)

    def update_goal(self, goal_id: str, **fields: Any) -> UserGoal:
        """Change some fields of a goal or thread (``deadline=None`` clears the deadline)."""
        unknown = sorted(set(fields) - _GOAL_FIELDS)
        if unknown:
            raise _bad(
                f"update_goal() cannot change {', '.join(unknown)}",
                f"Fields that can change: {', '.join(sorted(_GOAL_FIELDS))}",
            )
        current = self.get_goal(goal_id)
        if current is None:
            raise _bad(f"no such goal: {goal_id!r}", "list_goals(status=None) shows the ids")
        changes: dict[str, Any] = {}
        if "title" in fields:
            changes["title"] = _text("title", fields["title"], max_chars=MAX_TITLE_CHARS)
        if "kind" in fields:
            changes["kind"] = _choice("kind", fields["kind"], GOAL_KINDS)
        if "status" in fields:
            changes["status"] = _choice("status", fields["status"], GOAL_STATUSES)
        if "deadline" in fields:
            dl = fields["deadline"]
            changes["deadline"] = None if dl is None else _aware("deadline", dl)
        if "notes" in fields:
            changes["notes"] = _text(
                "notes", fields["notes"], max_chars=MAX_NOTES_CHARS, allow_empty=True
            )
        if "source_turn_ids" in fields:
            changes["source_turn_ids"] = _turn_refs(fields["source_turn_ids"])
        changes["updated_at"] = self._now()
        goal = UserGoal.model_validate({**current.model_dump(), **changes})
        with sql_errors("updating the goal"), self._db.transaction() as tx:
            cur = tx.execute(
                "UPDATE memory_goals SET kind = ?, title = ?, status = ?, deadline = ?,"
                " notes = ?, source_turn_ids = ?, updated_at = ? WHERE id = ?",
                (
                    goal.kind,
                    goal.title,
                    goal.status,
                    None if goal.deadline is None else _ts(goal.deadline),
                    goal.notes,
                    dumps(goal.source_turn_ids),
                    _ts(goal.updated_at),
                    goal.id,
                ),
            )
            if cur.rowcount == 0:
                raise _bad(f"no such goal: {goal_id!r}")
        return goal

    def close_goal(self, goal_id: str, status: Literal["done", "dropped"] = "done") -> UserGoal:
        _choice("status", status, ("done", "dropped"))
        return self.update_goal(goal_id, status=status)

    def delete_goal(self, goal_id: str) -> bool:
        with sql_errors("deleting the goal"), self._db.transaction() as tx:
            cur = tx.execute("DELETE FROM memory_goals WHERE id = ?", (str(goal_id),))
            return cur.rowcount > 0

    def list_goals(
        self, status: GoalStatus | None = "open", kind: GoalKind | None = None
    ) -> list[UserGoal]:
        """Goals (``status=None``: any status), soonest deadline first, undated last."""
        sql = f"SELECT {_GOAL_COLS} FROM memory_goals WHERE 1 = 1"
        args: list[Any] = []
        if status is not None:
            sql += " AND status = ?"
            args.append(_choice("status", status, GOAL_STATUSES))
        if kind is not None:
            sql += " AND kind = ?"
            args.append(_choice("kind", kind, GOAL_KINDS))
        sql += " ORDER BY deadline IS NULL, deadline, created_at, rowid"
        with sql_errors("listing goals"):
            rows = self._db.connection.execute(sql, args).fetchall()
        return [_goal(r) for r in rows]

    def due_within(self, delta: timedelta) -> list[UserGoal]:
        """Open goals and threads whose deadline falls between now and now + ``delta``."""
        if not isinstance(delta, timedelta):
            raise _bad(f"delta must be a timedelta, not {type(delta).__name__}")
        if delta < timedelta(0):
            raise _bad(f"delta must not be negative, got {delta}")
        now = self._now()
        with sql_errors("listing due goals"):
            rows = self._db.connection.execute(
                f"SELECT {_GOAL_COLS} FROM memory_goals WHERE status = 'open'"
                " AND deadline IS NOT NULL AND deadline >= ? AND deadline <= ?"
                " ORDER BY deadline, created_at, rowid",
                (_ts(now), _ts(now + delta)),
            ).fetchall()
        return [_goal(r) for r in rows]

    def _goal_tx(self, tx: sqlite3.Connection, goal: UserGoal, turn_id: int, now: datetime) -> None:
        want = _norm_title(goal.title)
        for gid, title, refs in tx.execute(
            "SELECT id, title, source_turn_ids FROM memory_goals"
            " WHERE status = 'open' AND kind = ? ORDER BY created_at, rowid",
            (goal.kind,),
        ).fetchall():
            if _norm_title(title) != want:
                continue
            turns = json.loads(refs)
            if str(turn_id) not in turns and len(turns) < MAX_TURN_REFS:
                turns.append(str(turn_id))
            tx.execute(
                "UPDATE memory_goals SET source_turn_ids = ?, updated_at = ? WHERE id = ?",
                (dumps(turns), _ts(now), gid),
            )
            if goal.deadline is not None:
                tx.execute(
                    "UPDATE memory_goals SET deadline = ? WHERE id = ? AND deadline IS NULL",
                    (_ts(goal.deadline), gid),
                )
            return
        self._insert_goal(tx, goal)
