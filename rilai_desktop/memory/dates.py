"""Relative dates inside a turn, resolved against the date the turn was said.

"I went to a support group yesterday", said on 8 May 2023, happened on 7 May 2023; "we
moved here last year" on 8 May 2023 means 2022. A turn record stores what each phrase
resolves to, so recall can say when a thing happened and not only when it was told::

    >>> resolve("I went to a support group yesterday", datetime(2023, 5, 8, tzinfo=UTC))
    [ResolvedDate(phrase='yesterday', date='2023-05-07', label='7 May 2023')]

Only unambiguous English phrases are resolved: yesterday, today, tonight, this morning, the
day before yesterday, N days/weeks/months/years ago, last/this/next week, month, year,
weekend, a weekday ("last Friday") and a month name after last/this/next. A week, month or
year resolves to that period ("the week of 1 May 2023", "April 2023", "2022").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

MONTHS: Final = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
WEEKDAYS: Final = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS: Final = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "couple of": 2,
}  # fmt: skip
_COUNT = (
    r"(\d{1,2}|a couple of|couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
)
_PATTERN: Final = re.compile(
    r"\b(?:(?P<dby>the day before yesterday)|(?P<yesterday>yesterday|last night)"
    r"|(?P<today>today|tonight|this (?:morning|afternoon|evening))"
    rf"|(?P<ago>(?P<count>{_COUNT}) (?P<unit>days?|weeks?|months?|years?) ago)"
    r"|(?P<rel>last|this|next|past) (?P<period>week(?:end)?|month|year|"
    + "|".join(WEEKDAYS + MONTHS)
    + r"))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ResolvedDate:
    phrase: str  # the person's words
    date: str  # ISO: a day (2023-05-07), a month (2023-04) or a year (2022)
    label: str  # for a person: "7 May 2023", "April 2023", "2022", "the week of 1 May 2023"

    def as_dict(self) -> dict[str, str]:
        return {"phrase": self.phrase, "date": self.date, "label": self.label}


def day_label(day: datetime) -> str:
    return f"{day.day} {MONTHS[day.month - 1].title()} {day.year}"


def _day(phrase: str, day: datetime) -> ResolvedDate:
    return ResolvedDate(phrase, day.date().isoformat(), day_label(day))


def _month(phrase: str, year: int, month: int) -> ResolvedDate:
    return ResolvedDate(phrase, f"{year:04d}-{month:02d}", f"{MONTHS[month - 1].title()} {year}")


def _year(phrase: str, year: int) -> ResolvedDate:
    return ResolvedDate(phrase, f"{year:04d}", str(year))


def _week(phrase: str, day: datetime) -> ResolvedDate:
    monday = day - timedelta(days=day.weekday())
    return ResolvedDate(phrase, monday.date().isoformat(), f"the week of {day_label(monday)}")


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _resolve_one(m: re.Match[str], at: datetime) -> ResolvedDate | None:
    phrase = m.group(0)
    if m.group("dby"):
        return _day(phrase, at - timedelta(days=2))
    if m.group("yesterday"):
        return _day(phrase, at - timedelta(days=1))
    if m.group("today"):
        return _day(phrase, at)
    if m.group("ago"):
        count = m.group("count").lower()
        n = int(count) if count.isdigit() else _NUMBERS.get(count, 1)
        unit = m.group("unit").lower().rstrip("s")
        if unit == "day":
            return _day(phrase, at - timedelta(days=n))
        if unit == "week":
            return _week(phrase, at - timedelta(weeks=n))
        if unit == "month":
            return _month(phrase, *_shift_month(at.year, at.month, -n))
        return _year(phrase, at.year - n)
    rel, period = m.group("rel").lower(), m.group("period").lower()
    step = {"last": -1, "past": -1, "this": 0, "next": 1}[rel]
    if period == "week":
        return _week(phrase, at + timedelta(weeks=step))
    if period == "weekend":
        saturday = at + timedelta(days=(5 - at.weekday()) % 7)
        if step < 0:
            saturday = at - timedelta(days=(at.weekday() - 5) % 7 or 7)
        elif step > 0 and saturday - at < timedelta(days=2):
            saturday += timedelta(weeks=1)
        return ResolvedDate(
            phrase, saturday.date().isoformat(), f"the weekend of {day_label(saturday)}"
        )
    if period == "month":
        return _month(phrase, *_shift_month(at.year, at.month, step))
    if period == "year":
        return _year(phrase, at.year + step)
    if period in WEEKDAYS:
        target = WEEKDAYS.index(period)
        if step < 0:
            back = (at.weekday() - target) % 7 or 7
            return _day(phrase, at - timedelta(days=back))
        ahead = (target - at.weekday()) % 7 or 7
        return _day(phrase, at + timedelta(days=ahead + (7 if step > 0 and ahead < 2 else 0)))
    month = MONTHS.index(period) + 1
    if step < 0:
        year = at.year if month < at.month else at.year - 1
    elif step > 0:
        year = at.year if month > at.month else at.year + 1
    else:
        year = at.year
    return _month(phrase, year, month)


def resolve(text: str, at: datetime) -> list[ResolvedDate]:
    """Every relative date phrase of ``text`` resolved against ``at``, in order, once each."""
    out: list[ResolvedDate] = []
    seen: set[str] = set()
    for m in _PATTERN.finditer(text):
        resolved = _resolve_one(m, at)
        if resolved is not None and resolved.phrase.lower() not in seen:
            seen.add(resolved.phrase.lower())
            out.append(resolved)
    return out
