"""The relationship memory: episodes, user facts, goals and open threads (layers 3 and 7).

Seed 000's companion memory (the memory of the relationship with the user, as opposed to
the extracted items of ``memory/items.py``). Three tables of migration 0003 hold it:
``memory_episodes`` (what happened, with an embedding of the summary), ``memory_user_facts``
(hypotheses about the user, with an embedding of the fact) and ``memory_goals`` (goals and
open threads with optional deadlines). Every write goes through ``db.transaction()``, so it
joins a turn's commit when one is open. Times are stored as fixed-width UTC ISO-8601 text
(``2026-01-20T10:00:00.000000+00:00``) so they order as text.

``RelationshipMemory`` (``memory.py``) is the one class callers use; it combines
``EpisodeMemory``, ``FactMemory`` and ``GoalMemory``, which share ``RelationshipStore``
(``store.py``: the clock, the embeddings, the recall cache). ``checks.py`` holds the limits
and input checks, ``rows.py`` the columns and the row -> contract conversions.
"""

from rilai_desktop.memory.relationship.checks import (
    FACT_CATEGORIES,
    GOAL_KINDS,
    GOAL_STATUSES,
    GoalKind,
    GoalStatus,
    fact_hash,
)
from rilai_desktop.memory.relationship.memory import RelationshipMemory
from rilai_desktop.memory.relationship.rows import UserGoal

__all__ = [
    "FACT_CATEGORIES",
    "GOAL_KINDS",
    "GOAL_STATUSES",
    "GoalKind",
    "GoalStatus",
    "RelationshipMemory",
    "UserGoal",
    "fact_hash",
]
