"""The nudge budget: cost units per rolling hour and per rolling day, rebuilt from the log.

Each level has a cost (``ladder.LEVEL_COSTS``: L0/L1 free, L2/L3 one, L4 two). A nudge fits
when the units spent in the last 60 minutes plus its cost stay within ``nudges.per_hour``
AND the units spent in the last 24 hours plus its cost stay within ``nudges.per_day``.
Rolling windows, not calendar ones: a rolling day within budget implies every calendar day
is, and there is no burst at midnight. Over budget, a nudge drops to the highest level
that still fits; L1 and L0 are free, so a nudge is never lost, only quieted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from rilai_desktop.daemon.nudges.history import NudgeRecord
from rilai_desktop.daemon.nudges.ladder import L0_LOG, level_cost

HOUR: Final = timedelta(hours=1)
DAY: Final = timedelta(hours=24)


def spent_in(records: Iterable[NudgeRecord], now: datetime, window: timedelta) -> int:
    """Units spent in ``(now - window, now]`` (records from the future count: a clock
    that went backwards must not hand out fresh budget)."""
    start = now - window
    return sum(r.cost for r in records if r.at > start)


@dataclass(frozen=True)
class Budget:
    per_hour: int
    per_day: int
    spent_hour: int
    spent_day: int

    @classmethod
    def at(
        cls, records: Iterable[NudgeRecord], now: datetime, per_hour: int, per_day: int
    ) -> Budget:
        items = list(records)
        return cls(per_hour, per_day, spent_in(items, now, HOUR), spent_in(items, now, DAY))

    def fits(self, level: int) -> bool:
        cost = level_cost(level)
        return self.spent_hour + cost <= max(0, self.per_hour) and self.spent_day + cost <= max(
            0, self.per_day
        )

    def highest_fitting(self, level: int) -> int:
        """``level`` if it fits, else the highest lower level that does (L0 at worst)."""
        for candidate in range(level, L0_LOG - 1, -1):
            if self.fits(candidate):
                return candidate
        return L0_LOG

    def spend(self, level: int) -> Budget:
        cost = level_cost(level)
        return Budget(self.per_hour, self.per_day, self.spent_hour + cost, self.spent_day + cost)

    def as_dict(self) -> dict[str, int]:
        return {
            "per_hour": self.per_hour,
            "per_day": self.per_day,
            "spent_hour": self.spent_hour,
            "spent_day": self.spent_day,
        }
