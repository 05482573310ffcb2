"""``LLMExtractor``: short facts from the extraction model, validated in code.

The model answers under a JSON schema the grammar enforces (enums for every bounded value);
each item is then checked: unknown turn ids, parroted instructions, ungrounded text and
repeats are dropped (DESIGN: the tiny models parrot and repeat).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from rilai_desktop.errors import ExtractionError, MemoryInputError, RilaiError
from rilai_desktop.memory.extraction.drafts import KIND_CATEGORIES, _check_hint, _dedupe, _later
from rilai_desktop.memory.extraction.text import _clip, _fold, _key, _one_line, _words, _wordset
from rilai_desktop.memory.ports import TextModel
from rilai_desktop.memory.types import (
    IMPORTANCE_LEVELS,
    ITEM_KINDS,
    Importance,
    ItemDraft,
    Turn,
)

log = logging.getLogger(__name__)

# ── the model ────────────────────────────────────────────────────────────────

# the model proposes facts: never an utterance fallback or a turn record (memory keeps those)
LLM_KINDS: tuple[str, ...] = tuple(k for k in ITEM_KINDS if k not in ("utterance", "turn"))
LLM_CONFIDENCE = {"low": 0.5, "medium": 0.7, "high": 0.9}
LLM_CONTENT_CHARS = 200
MAX_TURNS_PER_CALL = 40
USER_LINE_CHARS = 280
OTHER_LINE_CHARS = 120
MAX_TURN_IDS = 3
INSTRUCTIONS = (
    "List durable facts about the user from this chat: preferences, boundaries, biography, "
    "commitments, decisions, values, goals and notable events.",
    "Write each fact as one short sentence about the user.",
    "Cite the ids of the user turns it comes from.",
    "Skip small talk and what the assistant said.",
)
SYSTEM_PROMPT = "\n".join(INSTRUCTIONS)
_PARROT_MARKERS = ("turn_id", "turn id", "turn ids", "durable fact")
_PLACEHOLDERS = frozenset({"", "string", "content", "fact", "none", "null", "n a", "example"})
_STOP_STEMS = _wordset(
    """the user users they them their she her he his has have had and but for with that this
    from are was were been being who whom which what when where about into onto very really
    also just does did doing said says like"""
)


class _ReplyItem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    content: str
    kind: str
    importance: Importance
    confidence: Literal["low", "medium", "high"]
    turn_ids: list[str]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    items: list[dict[str, Any]]


class _BadReply(Exception):
    """The model's reply could not be parsed (retried like a model error)."""


def _stems(text: str) -> set[str]:
    return {w[:4] for w in _words(_fold(text)) if len(w) >= 3 and w not in _STOP_STEMS}


def reply_schema(turn_ids: Sequence[str], max_items: int, min_items: int = 0) -> dict[str, Any]:
    """The JSON schema the model's reply is constrained to (enums for everything bounded).

    ``min_items`` 1 when the chunk has a substantive user turn: the 0.5B model otherwise
    answers ``{"items": []}`` to almost everything (measured on the e2e transcript); an
    item that turns out to be empty or ungrounded is dropped in code anyway.
    """
    item = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1, "maxLength": LLM_CONTENT_CHARS},
            "kind": {"type": "string", "enum": list(LLM_KINDS)},
            "importance": {"type": "string", "enum": list(IMPORTANCE_LEVELS)},
            "confidence": {"type": "string", "enum": list(LLM_CONFIDENCE)},
            "turn_ids": {
                "type": "array",
                "items": {"type": "string", "enum": list(turn_ids)},
                "minItems": 1,
                "maxItems": MAX_TURN_IDS,
            },
        },
        "required": ["content", "kind", "importance", "confidence", "turn_ids"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": item,
                "minItems": min(min_items, max_items),
                "maxItems": max_items,
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    }


class LLMExtractor:
    """Facts the extraction model finds, validated and deduped in code.

    Each call sees at most 40 turns (longer conversations are chunked). A model error or an
    unparsable reply is retried ``retries`` times, sleeping ``backoff_base * 2**attempt``
    between tries, each retry asking for fewer items (a shorter reply) a little warmer;
    then ExtractionError (MEM-005).
    """

    def __init__(
        self,
        model: TextModel,
        *,
        max_items: int = 6,
        max_tokens: int = 400,
        retries: int = 2,
        backoff_base: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if max_items < 1 or max_tokens < 1 or retries < 0 or backoff_base < 0:
            raise MemoryInputError(
                "LLMExtractor needs max_items >= 1, max_tokens >= 1, retries >= 0 and "
                f"backoff_base >= 0, got {max_items}, {max_tokens}, {retries}, {backoff_base}"
            )
        self.model = model
        self.max_items = max_items
        self.max_tokens = max_tokens
        self.retries = retries
        self.backoff_base = backoff_base
        self._sleep = sleep

    def extract(
        self, turns: Sequence[Turn], *, category_hint: str | None = None
    ) -> list[ItemDraft]:
        _check_hint(category_hint)
        shown = [t for t in turns if _one_line(t.text)]
        drafts: list[ItemDraft] = []
        for start in range(0, len(shown), MAX_TURNS_PER_CALL):
            chunk = shown[start : start + MAX_TURNS_PER_CALL]
            if any(t.is_user for t in chunk):
                drafts.extend(self._extract_chunk(chunk, category_hint))
        return _dedupe(drafts, containment=True)

    def prompt(self, turns: Sequence[Turn]) -> list[dict[str, str]]:
        """The messages for one chunk: the instructions, then ``[turn_id] Speaker: text``."""
        lines = []
        for t in turns:
            speaker = _one_line(t.speaker)[:40] or ("User" if t.is_user else "Assistant")
            limit = USER_LINE_CHARS if t.is_user else OTHER_LINE_CHARS
            lines.append(f"[{t.id}] {speaker}: {_clip(_one_line(t.text), limit)}")
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def _extract_chunk(self, chunk: Sequence[Turn], hint: str | None) -> list[ItemDraft]:
        user_ids = list(dict.fromkeys(t.id for t in chunk if t.is_user))
        messages = self.prompt(chunk)
        cause: BaseException | None = None
        for attempt in range(self.retries + 1):
            substantive = any(
                t.is_user and len(_words(t.text)) >= 6 and len(set(_words(t.text))) >= 4
                for t in chunk
            )
            schema = reply_schema(
                user_ids, max(1, self.max_items >> attempt), min_items=1 if substantive else 0
            )
            try:
                reply = self.model.complete(
                    messages,
                    schema=schema,
                    max_tokens=self.max_tokens,
                    temperature=min(0.2 + 0.2 * attempt, 1.0),
                )
                return self._drafts(_parse(reply), chunk, hint)
            except (RilaiError, _BadReply, TimeoutError, OSError) as exc:
                cause = exc
                log.info("extraction attempt %d failed: %s", attempt + 1, exc)
                if attempt < self.retries:
                    self._sleep(self.backoff_base * 2**attempt)
        raise ExtractionError(
            f"LLM extraction failed after {self.retries + 1} attempts: {cause}",
            context={"model": self.model.model_id},
        ) from cause

    def _drafts(
        self, items: list[dict[str, Any]], chunk: Sequence[Turn], hint: str | None
    ) -> list[ItemDraft]:
        by_id = {t.id: t for t in chunk if t.is_user}
        instructions = {_key(line) for line in INSTRUCTIONS}
        whole = _key(SYSTEM_PROMPT)
        drafts: list[ItemDraft] = []
        for raw in items:
            try:
                item = _ReplyItem.model_validate(raw)
            except ValidationError:
                continue
            content = _clip(_one_line(item.content), LLM_CONTENT_CHARS)
            key = _key(content)
            lowered = content.casefold()
            ids = list(dict.fromkeys(item.turn_ids))
            if (
                item.kind not in LLM_KINDS
                or key in _PLACEHOLDERS
                or not ids
                or any(i not in by_id for i in ids)
                or any(marker in lowered for marker in _PARROT_MARKERS)
                or key in instructions
                or (len(key.split()) >= 3 and key in whole)
                or any(f"[{i}]".casefold() in lowered for i in by_id)
                or not _stems(content) & _stems(" ".join(by_id[i].text[:2000] for i in ids))
            ):
                continue
            valid_at: datetime | None = None
            for i in ids:
                valid_at = _later(valid_at, by_id[i].at)
            drafts.append(
                ItemDraft(
                    content=content,
                    kind=item.kind,
                    category=hint or KIND_CATEGORIES[item.kind],
                    confidence=LLM_CONFIDENCE[item.confidence],
                    importance=item.importance,
                    source_turn_ids=ids,
                    valid_at=valid_at,
                )
            )
        return _dedupe(drafts, containment=True)


def _parse(reply: Any) -> list[dict[str, Any]]:
    text = getattr(reply, "text", None)
    if not isinstance(text, str):
        raise _BadReply(f"the model returned no text ({type(reply).__name__})")
    try:
        return _Reply.model_validate(json.loads(text)).items
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise _BadReply(f"unparsable reply ({first}): {text[:200]!r}") from exc
