"""Quiet hours, in the person's LOCAL time, possibly spanning midnight (22:00–08:00).

The window is half-open, ``[start, end)``: at 22:00 it is quiet, at 08:00 it is not.
``start == end`` means no quiet hours at all (an empty window, not a whole day: turning
quiet hours "off" should not silently mute everything). ``now`` is an aware datetime
(UTC from the Clock); ``tz`` pins the local zone for tests, ``None`` is the machine's.
"""

from __future__ import annotations

import re
from datetime import datetime, time, tzinfo
from typing import Final

from rilai_desktop.daemon.nudges.ladder import L2_ON_OPEN

_HHMM: Final = re.compile(r"^([01]?[0-9]|2[0-3]):([0-5][0-9])$")
QUIET_MAX_LEVEL: Final = L2_ON_OPEN
"""In quiet hours nothing reaches out: L3/L4 wait as "shown on next open"."""


def parse_hhmm(text: str) -> time:
    """``"22:00"`` → ``time(22, 0)``; anything else raises ValueError naming the text."""
    match = _HHMM.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a HH:MM time: {text!r}")
    return time(int(match.group(1)), int(match.group(2)))


def local(now: datetime, tz: tzinfo | None = None) -> datetime:
    """``now`` in the local zone (``tz``, or the machine's when None)."""
    return now.astimezone(tz) if tz is not None else now.astimezone()


def in_quiet_hours(now: datetime, start: str, end: str, tz: tzinfo | None = None) -> bool:
    """Is ``now`` inside ``[start, end)`` local time? Bad times mean "no quiet hours"
    would be wrong to assume silently, so they raise ValueError (settings validate them)."""
    begin, finish = parse_hhmm(start), parse_hhmm(end)
    if begin == finish:
        return False
    t = local(now, tz).time().replace(tzinfo=None)
    if begin < finish:  # same day, e.g. 13:00–15:00
        return begin <= t < finish
    return t >= begin or t < finish  # spans midnight, e.g. 22:00–08:00
