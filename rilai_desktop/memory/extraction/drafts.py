"""Drafts: the kind -> category map, and folding drafts that say the same into one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.extraction.text import _key
from rilai_desktop.memory.types import (
    CATEGORY_NAME,
    CATEGORY_NAME_MAX,
    IMPORTANCE_LEVELS,
    ItemDraft,
)

ExtractionMode = Literal["rules", "llm", "both"]
KIND_CATEGORIES: dict[str, str] = {
    "preference": "preferences",
    "boundary": "boundaries",
    "biography": "biography",
    "commitment": "commitments",
    "decision": "decisions",
    "value": "values",
    "goal": "goals",
    "event": "events",
    "emotion": "events",
    "utterance": "conversation",
    "fact": "facts",
}

# ── drafts ───────────────────────────────────────────────────────────────────

_IMPORTANCE_RANK = {level: n for n, level in enumerate(IMPORTANCE_LEVELS)}


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def _merge(kept: ItemDraft, dup: ItemDraft) -> ItemDraft:
    """One draft for two that say the same: union of turns, the stronger claim, the later date."""
    ids = list(dict.fromkeys([*kept.source_turn_ids, *dup.source_turn_ids]))
    importance = max(kept.importance, dup.importance, key=_IMPORTANCE_RANK.__getitem__)
    return kept.model_copy(
        update={
            "source_turn_ids": ids,
            "confidence": max(kept.confidence, dup.confidence),
            "importance": importance,
            "valid_at": _later(kept.valid_at, dup.valid_at),
        }
    )


def _dedupe(drafts: Sequence[ItemDraft], *, containment: bool = False) -> list[ItemDraft]:
    """Drafts with equal normalised content (or, with ``containment``, one inside another,
    three words or more) folded into the first."""
    out: list[ItemDraft] = []
    index: dict[str, int] = {}
    for draft in drafts:
        key = _key(draft.content) or draft.content
        n = index.get(key)
        if n is None and containment:
            n = next((i for seen, i in index.items() if _contains(seen, key)), None)
        if n is None:
            index[key] = len(out)
            out.append(draft)
        else:
            out[n] = _merge(out[n], draft)
    return out


def _contains(a: str, b: str) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short.split()) >= 3 and f" {short} " in f" {long} "


def _check_hint(category_hint: str | None) -> None:
    if category_hint is not None and (
        len(category_hint) > CATEGORY_NAME_MAX or not CATEGORY_NAME.match(category_hint)
    ):
        raise MemoryInputError(
            f"category_hint must be a snake_case category name, got {category_hint!r}",
            context={"category_hint": category_hint},
        )
