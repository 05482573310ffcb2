"""Per-condition cooldowns and once-per-episode anchors, both rebuilt from the log.

- cooldown: after a nudge for a condition key (``deadline:<goal id>``, ``rupture``, …) the
  same key stays quiet for ``nudges.cooldown_hours``, whatever level it went out at (an L0
  too: otherwise a condition that holds would log itself every tick);
- anchor: a nudge names the episode it is about (the last message's time for "strain then
  silence", the deadline and its stage for a deadline). The same condition never speaks
  twice about the same episode, however long the episode lasts: a morning's strain gets
  one check-in, not one every cooldown period until the evening.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from rilai_desktop.daemon.nudges.history import NudgeRecord


def last_for(records: Iterable[NudgeRecord], condition: str) -> NudgeRecord | None:
    latest: NudgeRecord | None = None
    for record in records:
        if record.condition == condition and (latest is None or record.at > latest.at):
            latest = record
    return latest


def cooldown_left(
    records: Iterable[NudgeRecord], condition: str, now: datetime, cooldown: timedelta
) -> timedelta | None:
    """Time left on ``condition``'s cooldown at ``now``; None when it may speak.

    A record stamped in the future (the clock went backwards) keeps the cooldown on: the
    safe reading of a confused clock is "recently nudged".
    """
    last = last_for(records, condition)
    if last is None or cooldown <= timedelta(0):
        return None
    left = last.at + cooldown - now
    return left if left > timedelta(0) else None


def already_said(records: Iterable[NudgeRecord], condition: str, anchor: str) -> bool:
    """Has this condition already nudged about this episode?"""
    return any(r.condition == condition and r.anchor == anchor for r in records)
