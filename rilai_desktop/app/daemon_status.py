"""Where the check-ins stand, in one small value a client can show: running, paused until
a time, in quiet hours, off, run by another process, or not running here.

Computed from what decides it — the nudge settings as saved (the daemon re-reads them at
each run), the snooze/mute controls (``nudges.json``), and whether this engine runs the
daemon — never from the database, so a client may ask for it on any thread but a GUI's
(it reads two small files).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Literal

from rilai_desktop.daemon.nudges.quiet_hours import in_quiet_hours, local, parse_hhmm

if TYPE_CHECKING:
    from rilai_desktop.config import NudgeSettings
    from rilai_desktop.daemon.nudges import ControlState

DaemonState = Literal["running", "paused", "quiet hours", "off", "elsewhere", "stopped"]


@dataclass(frozen=True)
class DaemonStatus:
    """``state``, ``until`` (the end of a pause or of quiet hours, UTC) and ``text``: the
    words for a status strip ("check-ins: paused until 14:00")."""

    state: DaemonState
    text: str
    until: datetime | None = None


def _clock(when: datetime, now: datetime, tz: tzinfo | None) -> str:
    """``14:00`` today, ``tomorrow 00:00``, else ``Tue 4 Mar 09:00`` (local time)."""
    here, today = local(when, tz), local(now, tz).date()
    days = (here.date() - today).days
    hhmm = here.strftime("%H:%M")
    if days == 0:
        return hhmm
    if days == 1:
        return f"tomorrow {hhmm}"
    return f"{here.strftime('%a')} {here.day} {here.strftime('%b')} {hhmm}"


def _quiet_end(now: datetime, settings: NudgeSettings, tz: tzinfo | None) -> datetime:
    """The next local ``quiet_end`` after ``now``."""
    here, at = local(now, tz), parse_hhmm(settings.quiet_end)
    end = here.replace(hour=at.hour, minute=at.minute, second=0, microsecond=0)
    return end if end > here else end + timedelta(days=1)


def daemon_status(
    settings: NudgeSettings,
    controls: ControlState,
    *,
    runs_here: bool,
    elsewhere: bool = False,
    now: datetime,
    tz: tzinfo | None = None,
) -> DaemonStatus:
    """Off wins (nothing at all is evaluated); a pause holds whoever runs the daemon (the
    controls file is shared); then who runs it; then quiet hours; else running."""
    if not settings.enabled:
        return DaemonStatus("off", "check-ins: off")
    pauses = [
        t for t in (controls.muted_until, controls.snoozed_until) if t is not None and now < t
    ]
    if pauses:
        until = max(pauses)
        return DaemonStatus("paused", f"check-ins: paused until {_clock(until, now, tz)}", until)
    if elsewhere:
        return DaemonStatus("elsewhere", "check-ins: run elsewhere")
    if not runs_here:
        return DaemonStatus("stopped", "check-ins: not running here")
    if in_quiet_hours(now, settings.quiet_start, settings.quiet_end, tz):
        end = _quiet_end(now, settings, tz)
        return DaemonStatus(
            "quiet hours", f"check-ins: quiet hours until {_clock(end, now, tz)}", end
        )
    return DaemonStatus("running", "check-ins: running")
