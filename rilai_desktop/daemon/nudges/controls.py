"""The person's controls: snooze for a while, mute until tomorrow, unmute.

(On/off is the ``nudges.enabled`` setting, written by ``rilai nudges settings --on/--off``
through the same writer as ``rilai config set``.) Snooze and mute live in
``data_dir/nudges.json`` so the running daemon and the CLI share them: the engine reads
the file on every run, so ``rilai nudges snooze 2h`` takes effect at the next tick.

Writes are atomic (a temp file, then ``os.replace``). A corrupt or unreadable file is
treated as "no snooze, no mute" with a warning (logged, and on :attr:`ControlState.warning`
for the CLI to print), and is rewritten whole on the next change. ``path=None`` keeps the
state in memory (the simulator, tests).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any, Final

from rilai_desktop.daemon.nudges.quiet_hours import local
from rilai_desktop.errors import RilaiError
from rilai_desktop.paths import make_private_dirs, private_opener

log = logging.getLogger(__name__)

CONTROLS_FILE: Final = "nudges.json"
MAX_SNOOZE: Final = timedelta(days=30)
"""Longer than a month is "off", which is a setting, not a snooze."""
_PART: Final = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)", re.IGNORECASE)
_UNITS: Final = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


class NudgeInputError(RilaiError):
    """Bad input to the nudge controls or the simulator (a duration, a scenario line)."""

    code = "RIL-065"
    name = "NudgeInputError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        "Durations look like 30m, 2h, 1h30m or 1d (at most 30 days)",
    ]


def parse_duration(text: str) -> timedelta:
    """``"30m"``, ``"2h"``, ``"1h30m"``, ``"1.5h"``, ``"1d"``; a bare number is minutes."""
    raw = text.strip().lower() if isinstance(text, str) else ""
    seconds = 0.0
    if re.fullmatch(r"\d+(?:\.\d+)?", raw):
        seconds = float(raw) * 60
    elif raw and re.fullmatch(rf"(?:{_PART.pattern}\s*)+", raw, re.IGNORECASE):
        seconds = sum(float(n) * _UNITS[u.lower()] for n, u in _PART.findall(raw))
    else:
        raise NudgeInputError(f"not a duration: {text!r}", context={"duration": str(text)})
    if not math.isfinite(seconds) or seconds <= 0:
        raise NudgeInputError(f"a duration must be longer than zero: {text!r}")
    if seconds > MAX_SNOOZE.total_seconds():
        raise NudgeInputError(
            f"{text!r} is longer than 30 days",
            recovery_suggestions=["To stop nudges altogether: rilai nudges settings --off"],
        )
    return timedelta(seconds=seconds)


def next_local_midnight(now: datetime, tz: tzinfo | None = None) -> datetime:
    """The start of tomorrow, local time, as an aware UTC datetime."""
    here = local(now, tz)
    tomorrow = here.date() + timedelta(days=1)
    midnight = datetime.combine(tomorrow, time(0, 0), tzinfo=here.tzinfo)
    return midnight.astimezone(UTC)


def _when(value: object) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO time or null, got {value!r}")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError(f"time without a timezone: {value!r}")
    return parsed.astimezone(UTC)


@dataclass(frozen=True)
class ControlState:
    """Snooze and mute, as stored (times in UTC); ``warning`` if the file was unreadable."""

    snoozed_until: datetime | None = None
    muted_until: datetime | None = None
    warning: str | None = None

    def snoozed(self, now: datetime) -> bool:
        return self.snoozed_until is not None and now < self.snoozed_until

    def muted(self, now: datetime) -> bool:
        return self.muted_until is not None and now < self.muted_until

    def quiet_reason(self, now: datetime) -> str | None:
        if self.muted(now):
            return "muted"
        if self.snoozed(now):
            return "snoozed"
        return None

    def as_dict(self, now: datetime) -> dict[str, Any]:
        snoozed, muted = self.snoozed_until, self.muted_until
        return {
            "snoozed": self.snoozed(now),
            "snoozed_until": snoozed.isoformat() if snoozed and now < snoozed else None,
            "muted": self.muted(now),
            "muted_until": muted.isoformat() if muted and now < muted else None,
        }


class NudgeControls:
    """Snooze / mute state in ``data_dir/nudges.json`` (or in memory when ``path`` is None)."""

    def __init__(self, path: Path | None, *, tz: tzinfo | None = None) -> None:
        self.path = path
        self.tz = tz
        self._memory = ControlState()

    @classmethod
    def in_data_dir(cls, data_dir: Path, *, tz: tzinfo | None = None) -> NudgeControls:
        return cls(data_dir / CONTROLS_FILE, tz=tz)

    def state(self) -> ControlState:
        """The current state, read fresh (another process may have changed it)."""
        if self.path is None:
            return self._memory
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ControlState()
        except (OSError, UnicodeDecodeError) as exc:
            return self._corrupt(f"cannot read {self.path}: {exc}")
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            return ControlState(_when(data.get("snoozed_until")), _when(data.get("muted_until")))
        except ValueError as exc:
            return self._corrupt(f"{self.path} is not a valid nudge state ({exc})")

    def _corrupt(self, message: str) -> ControlState:
        warning = (
            f"{message}; treating it as no snooze and no mute (it is rewritten on the next change)"
        )
        log.warning("%s", warning)
        return ControlState(warning=warning)

    def snooze(self, now: datetime, duration: timedelta) -> ControlState:
        if duration <= timedelta(0) or duration > MAX_SNOOZE:
            raise NudgeInputError(f"cannot snooze for {duration}")
        current = self.state()
        return self._save(ControlState(now + duration, current.muted_until))

    def mute_for_day(self, now: datetime) -> ControlState:
        current = self.state()
        return self._save(ControlState(current.snoozed_until, next_local_midnight(now, self.tz)))

    def unmute(self) -> ControlState:
        return self._save(ControlState())

    def _save(self, state: ControlState) -> ControlState:
        if self.path is None:
            self._memory = state
            return state
        data = {
            "version": 1,
            "snoozed_until": None
            if state.snoozed_until is None
            else state.snoozed_until.isoformat(),
            "muted_until": None if state.muted_until is None else state.muted_until.isoformat(),
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            make_private_dirs(self.path.parent)
            with open(tmp, "w", encoding="utf-8", opener=private_opener) as fh:
                fh.write(json.dumps(data, indent=2) + "\n")
            os.replace(tmp, self.path)
        except OSError as exc:
            raise NudgeInputError(
                f"cannot save the nudge state to {self.path}: {exc.strerror or exc}",
                recovery_suggestions=["Check that the data directory is writable"],
            ) from None
        return state
