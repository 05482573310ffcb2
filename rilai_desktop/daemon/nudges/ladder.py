"""The intervention ladder: how loudly a nudge may speak, and what each level costs.

A nudge is rare by design, so most of the ladder is quiet: L0 is written to the log and
nothing else, L1 lands in a daily digest the person reads when they choose, L2 waits until
the app is next opened. Only L3 (an inline message in the open conversation) and L4 (a
tray / desktop notification) reach out. The score (``scoring.py``) picks the level; the
gates (``engine.py``) may only lower it.
"""

from __future__ import annotations

from typing import Final

L0_LOG: Final = 0
L1_DIGEST: Final = 1
L2_ON_OPEN: Final = 2
L3_INLINE: Final = 3
L4_NOTIFY: Final = 4
LEVELS: Final[tuple[int, ...]] = (L0_LOG, L1_DIGEST, L2_ON_OPEN, L3_INLINE, L4_NOTIFY)

LEVEL_NAMES: Final[dict[int, str]] = {
    L0_LOG: "log only",
    L1_DIGEST: "daily digest",
    L2_ON_OPEN: "shown on next open",
    L3_INLINE: "inline message",
    L4_NOTIFY: "notification",
}

# Budget cost per level. L0/L1 interrupt nobody, so they are free; L2 and L3 are one unit;
# a notification reaches into whatever the person is doing, so it costs two.
LEVEL_COSTS: Final[dict[int, int]] = {
    L0_LOG: 0,
    L1_DIGEST: 0,
    L2_ON_OPEN: 1,
    L3_INLINE: 1,
    L4_NOTIFY: 2,
}

# Lowest score for each level (checked from L4 down). Chosen with the scores the five
# conditions actually produce (docs/nudges.md has the table): an hour-away deadline reaches
# L4, a same-day deadline or real distress after a silence L3, a rupture or a day-ahead
# deadline L2, idle open threads L1.
LEVEL_THRESHOLDS: Final[tuple[tuple[int, float], ...]] = (
    (L4_NOTIFY, 0.55),
    (L3_INLINE, 0.35),
    (L2_ON_OPEN, 0.18),
    (L1_DIGEST, 0.05),
)

DELIVERED_LEVELS: Final = frozenset({L3_INLINE, L4_NOTIFY})  # go through the Delivery port


def level_for_score(score: float) -> int:
    """The ladder level a score earns (before any gate); garbage scores earn L0."""
    if not isinstance(score, int | float) or score != score:  # NaN
        return L0_LOG
    for level, threshold in LEVEL_THRESHOLDS:
        if score >= threshold:
            return level
    return L0_LOG


def level_cost(level: int) -> int:
    return LEVEL_COSTS.get(level, 0)


def clamp_level(level: object) -> int:
    """A level read from the log, made safe: ints 0–4 as they are, anything else L0."""
    if isinstance(level, bool) or not isinstance(level, int):
        return L0_LOG
    return min(L4_NOTIFY, max(L0_LOG, level))


def level_label(level: int) -> str:
    return f"L{level} {LEVEL_NAMES.get(level, '?')}"
