"""Scenario files for ``rilai nudges simulate``: a scripted day, one JSON object a line.

Every line has ``"at"`` — ``"HH:MM"`` (local time: the first such time at or after the
previous line, so a day can run past midnight) or ``"+1h30m"`` (after the previous line)
— and exactly one action:

- ``{"user": "text", "turn_s": 60}``: the person writes; the real sensors read it and a
  turn runs for ``turn_s`` seconds (default 60), during which no nudge may fire;
- ``{"goal": "title", "deadline": "17:00" | "+6h" | null, "kind": "goal" | "open_thread"}``:
  memory records an open goal (a deadline at HH:MM is the first one after the line);
- ``{"done": "title"}``: that goal is closed;
- ``{"stance": {...}}`` / ``{"modulators": {...}}``: set dimensions directly (0–1);
- ``{"snooze": "30m"}``, ``{"mute": true}``, ``{"unmute": true}``: the person's controls.

``"note"`` is free text for the reader. Blank lines and lines starting with ``#`` are
skipped. A bad line stops the command with an error naming the file and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any, Final

from rilai_desktop.contracts.workspace import MODULATOR_NAMES, STANCE_DIMENSIONS
from rilai_desktop.daemon.nudges.controls import NudgeInputError, parse_duration
from rilai_desktop.daemon.nudges.quiet_hours import local, parse_hhmm
from rilai_desktop.jsonl import object_lines

ACTIONS: Final = ("user", "goal", "done", "stance", "modulators", "snooze", "mute", "unmute")
OPTIONAL: Final = {"user": {"turn_s"}, "goal": {"deadline", "kind"}}
MAX_TURN_S: Final = 3600
MAX_TEXT: Final = 20_000
_CLOCK: Final = re.compile(r"^\d{1,2}:\d{2}$")


@dataclass(frozen=True)
class Step:
    """One scenario line, resolved to an aware UTC time."""

    at: datetime
    action: str
    value: Any
    options: dict[str, Any] = field(default_factory=dict)
    line: int = 0


def _bad(source: str, line: int, problem: str) -> NudgeInputError:
    return NudgeInputError(
        f"{source} line {line}: {problem}",
        context={"path": source, "line": line},
        recovery_suggestions=[
            'Each line is a JSON object with "at" and one action, e.g. '
            '{"at": "08:15", "user": "I\'m so stressed"} (docs/nudges.md)',
        ],
    )


def resolve_time(text: str, previous: datetime, tz: tzinfo | None) -> datetime:
    """``"HH:MM"`` → the first such local time at or after ``previous``; ``"+2h"`` →
    ``previous`` + 2 h. Raises ValueError / NudgeInputError on anything else."""
    text = text.strip()
    if text.startswith("+"):
        return previous + parse_duration(text[1:])
    if not _CLOCK.match(text):
        raise ValueError(f'"at" must be HH:MM or +DURATION, got {text!r}')
    hhmm = parse_hhmm(text)
    here = local(previous, tz)
    when = here.replace(hour=hhmm.hour, minute=hhmm.minute, second=0, microsecond=0)
    if when < here:
        when += timedelta(days=1)
    return when.astimezone(previous.tzinfo)


def _unit_map(value: object, names: tuple[str, ...], what: str) -> dict[str, float]:
    if not isinstance(value, dict) or not value:
        raise ValueError(f'"{what}" must be an object like {{"{names[0]}": 0.5}}')
    out: dict[str, float] = {}
    for key, raw in value.items():
        if key not in names:
            raise ValueError(f"unknown {what} dimension {key!r}; known: {', '.join(names)}")
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= 1:
            raise ValueError(f"{what}.{key} must be a number from 0 to 1, got {raw!r}")
        out[key] = float(raw)
    return out


def _step(obj: dict[str, Any], at: datetime, tz: tzinfo | None, number: int) -> Step:
    actions = [a for a in ACTIONS if a in obj]
    if len(actions) != 1:
        raise ValueError(f"expected exactly one action of {', '.join(ACTIONS)}; got {actions}")
    action = actions[0]
    allowed = {"at", "note", action, *OPTIONAL.get(action, set())}
    extra = sorted(set(obj) - allowed)
    if extra:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, extra))} for a {action!r} line")
    value = obj[action]
    options: dict[str, Any] = {}
    if action == "user":
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise ValueError(f'"user" must be a string of at most {MAX_TEXT} characters')
        turn_s = obj.get("turn_s", 60)
        if isinstance(turn_s, bool) or not isinstance(turn_s, int | float):
            raise ValueError('"turn_s" must be a number of seconds')
        if not 0 <= turn_s <= MAX_TURN_S:
            raise ValueError(f'"turn_s" must be between 0 and {MAX_TURN_S}')
        options["turn_s"] = float(turn_s)
    elif action in ("goal", "done"):
        if not isinstance(value, str) or not value.strip() or len(value) > 500:
            raise ValueError(f'"{action}" must be a non-empty title (at most 500 characters)')
        if action == "goal":
            kind = obj.get("kind", "goal")
            if kind not in ("goal", "open_thread"):
                raise ValueError('"kind" must be "goal" or "open_thread"')
            deadline = obj.get("deadline")
            if deadline is not None and not isinstance(deadline, str):
                raise ValueError('"deadline" must be "HH:MM", "+DURATION" or null')
            options["kind"] = kind
            options["deadline"] = None if deadline is None else resolve_time(deadline, at, tz)
    elif action in ("stance", "modulators"):
        names = STANCE_DIMENSIONS if action == "stance" else MODULATOR_NAMES
        value = _unit_map(value, names, action)
    elif action == "snooze":
        if not isinstance(value, str):
            raise ValueError('"snooze" must be a duration like "30m"')
        value = parse_duration(value)
    elif value is not True:
        raise ValueError(f'"{action}" must be true')
    return Step(at, action, value, options, number)


def parse_scenario(text: str, start: datetime, tz: tzinfo | None, source: str) -> list[Step]:
    """Every step of a scenario, checked before any is played."""
    steps: list[Step] = []
    previous = start

    def bad(number: int, problem: str) -> NudgeInputError:
        return _bad(source, number, problem)

    for number, obj in object_lines(text, bad, comments=True):
        at_text = obj.get("at")
        if not isinstance(at_text, str):
            raise _bad(source, number, '"at" is missing or not a string ("08:15" or "+30m")')
        try:
            at = resolve_time(at_text, previous, tz)
            steps.append(_step(obj, at, tz, number))
        except (ValueError, NudgeInputError) as exc:
            message = exc.message if isinstance(exc, NudgeInputError) else str(exc)
            raise _bad(source, number, message) from None
        previous = at
    return steps
