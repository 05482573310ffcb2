"""``RuleExtractor``: deterministic extraction from the user's own sentences.

It reads only the user's turns, sentence by sentence, and drafts the sentence itself (cleaned,
never rewritten) when a pattern (``patterns.py``) recognises a preference, boundary,
biography fact, commitment, decision, value, goal or event. A substantive user turn no
pattern recognised becomes one low-importance ``utterance`` item, so recall never misses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from rilai_desktop.memory.extraction.drafts import KIND_CATEGORIES, _check_hint, _dedupe
from rilai_desktop.memory.extraction.patterns import _RULES
from rilai_desktop.memory.extraction.text import (
    _SPACES,
    _clip,
    _fold,
    _is_substantive,
    clean_text,
    iter_sentences,
)
from rilai_desktop.memory.types import (
    ItemDraft,
    Turn,
)

RULE_CONTENT_CHARS = 300
UTTERANCE_CHARS = 600
MATCH_CHARS = 1_000  # a sentence is matched on its first 1,000 characters
MAX_SENTENCES_PER_TURN = 400
MAX_RULE_ITEMS_PER_TURN = 20


class RuleExtractor:
    """Deterministic extraction from the user's own sentences (see the module docstring)."""

    def extract(
        self, turns: Sequence[Turn], *, category_hint: str | None = None
    ) -> list[ItemDraft]:
        _check_hint(category_hint)
        drafts: list[ItemDraft] = []
        for turn in turns:
            if not turn.is_user or not turn.text.strip():
                continue
            text = clean_text(turn.text)
            found = self._from_sentences(turn, text, category_hint)
            if not found and _is_substantive(turn.text):
                found = [self._utterance(turn, text, category_hint)]
            drafts.extend(found)
        return _dedupe(drafts)

    def _from_sentences(self, turn: Turn, text: str, hint: str | None) -> list[ItemDraft]:
        found: list[ItemDraft] = []
        for sentence in islice(iter_sentences(text), MAX_SENTENCES_PER_TURN):
            draft = self._match(turn, sentence, hint)
            if draft is not None:
                found.append(draft)
                if len(found) >= MAX_RULE_ITEMS_PER_TURN:
                    break
        return found

    def _match(self, turn: Turn, sentence: str, hint: str | None) -> ItemDraft | None:
        folded = _fold(sentence[:MATCH_CHARS])
        question = folded.rstrip(" \"'”)").endswith("?")
        for rule in _RULES:
            if question and not rule.questions:
                continue
            m = rule.pattern.search(folded)
            if m is None or (rule.accept is not None and not rule.accept(m)):
                continue
            slot = rule.slot(m) if callable(rule.slot) else rule.slot
            return ItemDraft(
                content=_clip(sentence, RULE_CONTENT_CHARS),
                kind=rule.kind,
                category=hint or KIND_CATEGORIES[rule.kind],
                confidence=rule.confidence,
                importance=rule.importance,
                source_turn_ids=[turn.id],
                valid_at=turn.at,
                slot=slot,
            )
        return None

    @staticmethod
    def _utterance(turn: Turn, text: str, hint: str | None) -> ItemDraft:
        content = ""
        for sentence in iter_sentences(text):
            joined = f"{content} {sentence}".strip()
            if len(joined) > UTTERANCE_CHARS:
                break
            content = joined
        if not content:  # the first sentence alone is too long
            content = _clip(_SPACES.sub(" ", text).strip(), UTTERANCE_CHARS)
        return ItemDraft(
            content=content,
            kind="utterance",
            category=hint or KIND_CATEGORIES["utterance"],
            confidence=0.5,
            importance="low",
            source_turn_ids=[turn.id],
            valid_at=turn.at,
        )
