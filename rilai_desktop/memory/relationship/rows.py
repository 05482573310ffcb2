"""The relationship memory's rows: their columns, and rows -> contracts.

Episodes and user facts are the contracts' ``EpisodicEvent`` and ``UserFact``; a goal or
open thread is ``UserGoal`` (defined here: it exists only in this store).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import AwareDatetime, Field

from rilai_desktop.contracts._base import Contract
from rilai_desktop.contracts.memory import (
    EpisodicEvent,
    UserFact,
)
from rilai_desktop.memory.relationship.checks import (
    MAX_NOTES_CHARS,
    MAX_TITLE_CHARS,
    GoalKind,
    GoalStatus,
    _dt,
)

_EPISODE_COLS = (
    "id, timestamp, summary, emotions, participants, tags, importance, turn_id, session_id"
)
_FACT_COLS = (
    "id, fact, category, confidence, source, first_observed, last_confirmed, evidence_count"
)
_GOAL_COLS = "id, kind, title, status, deadline, notes, source_turn_ids, created_at, updated_at"
_EPISODE_FIELDS = frozenset(
    {
        "summary",
        "emotions",
        "participants",
        "tags",
        "importance",
        "turn_id",
        "session_id",
        "timestamp",
    }
)
_GOAL_FIELDS = frozenset({"title", "kind", "status", "deadline", "notes", "source_turn_ids"})


class UserGoal(Contract):
    """A goal the user is working towards, or an open thread Rilai should come back to."""

    id: str = Field(description="UUID")
    kind: GoalKind = Field(default="goal", description="goal or open_thread")
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS, description="What it is")
    status: GoalStatus = Field(default="open", description="open, done or dropped")
    deadline: AwareDatetime | None = Field(default=None, description="When it is due")
    notes: str = Field(default="", max_length=MAX_NOTES_CHARS, description="Free notes")
    source_turn_ids: list[str] = Field(default_factory=list, description="Turns it came from")
    created_at: AwareDatetime = Field(description="When it was recorded")
    updated_at: AwareDatetime = Field(description="When it last changed")


# ── rows ─────────────────────────────────────────────────────────────────────


def _episode(row: Sequence[Any]) -> EpisodicEvent:
    return EpisodicEvent(
        id=row[0],
        timestamp=_dt(row[1]),
        summary=row[2],
        emotions=json.loads(row[3]),
        participants=json.loads(row[4]),
        tags=json.loads(row[5]),
        importance=row[6],
        turn_id=row[7],
        session_id=row[8],
    )


def _fact(row: Sequence[Any]) -> UserFact:
    return UserFact(
        id=row[0],
        fact=row[1],
        category=row[2],
        confidence=row[3],
        source=row[4],
        first_observed=_dt(row[5]),
        last_confirmed=_dt(row[6]),
        evidence_count=row[7],
    )


def _goal(row: Sequence[Any]) -> UserGoal:
    return UserGoal(
        id=row[0],
        kind=row[1],
        title=row[2],
        status=row[3],
        deadline=None if row[4] is None else _dt(row[4]),
        notes=row[5],
        source_turn_ids=json.loads(row[6]),
        created_at=_dt(row[7]),
        updated_at=_dt(row[8]),
    )
