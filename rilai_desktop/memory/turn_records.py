"""Every turn retrievable as itself: one turn record per turn, beside the facts drawn from it.

A fact ("I researched adoption agencies") is what the extractor understood; the turn record
is what a person said (every speaker but the assistant), by whom and when: an item of kind
``turn`` whose content is the turn's text, with its ``speaker``, its session's date
(``valid_at``), its turn id and the relative dates inside it resolved against that date
(``memory.dates``). Records are never merged with
one another or with facts (two people can say "Thanks!"), and they replace the extractor's
``utterance`` fallback — the whole turn kept as a low-importance item when no rule matched
— which a record makes redundant.
"""

from __future__ import annotations

from collections.abc import Sequence

from rilai_desktop.memory.dates import resolve
from rilai_desktop.memory.types import MAX_ITEM_CHARS, TURN_KIND, ItemDraft, Turn

RECORD_CONFIDENCE = 1.0  # what was said is certain; what it means is the facts' business


def record_of(turn: Turn) -> ItemDraft | None:
    """The turn's record, or None for a turn with nothing to find (blank) or one the
    assistant said (what the companion said is in the event log, not in what it knows)."""
    text = " ".join(turn.text.split())
    if not text or not turn.is_user:
        return None
    if len(text) > MAX_ITEM_CHARS:
        text = text[: MAX_ITEM_CHARS - 1].rstrip() + "…"
    return ItemDraft(
        content=text,
        kind=TURN_KIND,
        category=None,
        confidence=RECORD_CONFIDENCE,
        importance="low",
        source_turn_ids=[turn.id],
        valid_at=turn.at,
        speaker=turn.speaker.strip()[:200] or None,
        dates=[d.as_dict() for d in resolve(turn.text, turn.at)] if turn.at else [],
    )


def with_records(turns: Sequence[Turn], drafts: Sequence[ItemDraft]) -> list[ItemDraft]:
    """``drafts`` without the utterance fallbacks, each fact marked with the speaker of the
    turns it came from (when they are one person's: "facts X stated about themselves"
    match a question about X as X's own turns do) and its relative dates resolved, then
    one record per turn."""
    recorded = [r for r in (record_of(t) for t in turns) if r is not None]
    covered = {tid for r in recorded for tid in r.source_turn_ids}
    speaker_of = {t.id: t.speaker.strip()[:200] for t in turns}
    kept: list[ItemDraft] = []
    for d in drafts:
        if d.kind == "utterance" and set(d.source_turn_ids) <= covered:
            continue
        who = {speaker_of.get(tid) for tid in d.source_turn_ids}
        if d.speaker is None and len(who) == 1 and None not in who:
            update: dict[str, object] = {"speaker": who.pop() or None}
            if d.valid_at is not None and not d.dates:
                update["dates"] = [r.as_dict() for r in resolve(d.content, d.valid_at)]
            d = d.model_copy(update=update)
        kept.append(d)
    return [*kept, *recorded]
