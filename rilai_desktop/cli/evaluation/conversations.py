"""The scripted conversations of `rilai eval replies` (docs/eval.md).

One conversation per line of a JSON Lines file::

    {"id": "dana-lisbon", "category": "memory", "turns": [
        {"user": "hi, I'm Dana. I just moved to Lisbon …", "intent": "witness",
         "category": "loneliness"},
        {"user": "do you remember where I moved?", "intent": "observe",
         "expect": ["Lisbon"], "category": "memory"}]}

``intent`` is the intent a good companion would choose for that message (one of the
council's ``INTENTS``); ``expect`` (optional) lists words of which at least one must appear
in the reply (memory questions); ``category`` (optional, on the conversation and on a turn)
is what ``--only`` selects. Blank lines and lines starting with ``#`` are skipped. Every
line is checked before anything runs; a bad one is an error naming its line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.errors import RilaiError
from rilai_desktop.jsonl import object_lines, read_text
from rilai_desktop.paths import REPO_ROOT

DEFAULT_SET = REPO_ROOT / "tests" / "data" / "replies" / "conversations.jsonl"
MIN_TURNS, MAX_TURNS = 1, 8
_CONVERSATION_KEYS = frozenset({"id", "category", "turns"})
_TURN_KEYS = frozenset({"user", "intent", "expect", "category"})


class EvalSetError(RilaiError):
    """A conversation set for `rilai eval` is unreadable or a line is malformed."""

    code = "RIL-075"
    name = "EvalSetError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        'One conversation per line: {"id": "...", "category": "...", "turns": [{"user":'
        ' "text", "intent": "witness", "expect": ["word"]}, ...]} (docs/eval.md)',
    ]


@dataclass(frozen=True)
class Turn:
    user: str
    intent: str
    expect: tuple[str, ...] = ()
    category: str = ""

    def expect_met(self, reply: str) -> bool | None:
        """None without ``expect``; else whether one of its words is in ``reply``."""
        if not self.expect:
            return None
        return any(
            re.search(rf"(?<!\w){re.escape(word)}(?!\w)", reply, re.IGNORECASE)
            for word in self.expect
        )


@dataclass(frozen=True)
class Conversation:
    id: str
    category: str
    turns: tuple[Turn, ...]

    def categories(self) -> set[str]:
        return {self.category, *(t.category for t in self.turns)} - {""}


def _turn(obj: Any, where: str) -> Turn:
    if not isinstance(obj, dict):
        raise EvalSetError(f"{where}: a turn must be a JSON object")
    extra = set(obj) - _TURN_KEYS
    if extra:
        raise EvalSetError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
    user, intent = obj.get("user"), obj.get("intent")
    if not isinstance(user, str) or not user.strip():
        raise EvalSetError(f'{where}: "user" must be a non-empty string')
    if intent not in INTENTS:
        raise EvalSetError(f'{where}: "intent" must be one of {", ".join(INTENTS)}, not {intent!r}')
    expect = obj.get("expect", [])
    if isinstance(expect, str):
        expect = [expect]
    if not isinstance(expect, list) or not all(isinstance(w, str) and w.strip() for w in expect):
        raise EvalSetError(f'{where}: "expect" must be a list of non-empty strings')
    category = obj.get("category", "")
    if not isinstance(category, str):
        raise EvalSetError(f'{where}: "category" must be a string')
    return Turn(user, str(intent), tuple(w.strip() for w in expect), category.strip())


def parse_conversations(text: str, source: str) -> list[Conversation]:
    """Every conversation of ``text`` (``source`` names it in errors)."""

    def bad(number: int, problem: str) -> EvalSetError:
        return EvalSetError(f"{source} line {number}: {problem}", context={"line": number})

    conversations: list[Conversation] = []
    seen: set[str] = set()
    for number, obj in object_lines(text, bad, comments=True):
        where = f"{source} line {number}"
        extra = set(obj) - _CONVERSATION_KEYS
        if extra:
            raise bad(number, f"unknown key(s) {', '.join(sorted(extra))}")
        cid = obj.get("id", f"line-{number}")
        if not isinstance(cid, str) or not cid.strip():
            raise bad(number, '"id" must be a non-empty string')
        if cid in seen:
            raise bad(number, f"the id {cid!r} is used twice")
        seen.add(cid)
        category = obj.get("category", "")
        if not isinstance(category, str):
            raise bad(number, '"category" must be a string')
        turns = obj.get("turns")
        if not isinstance(turns, list) or not MIN_TURNS <= len(turns) <= MAX_TURNS:
            raise bad(number, f'"turns" must be a list of {MIN_TURNS} to {MAX_TURNS} turns')
        parsed = tuple(_turn(t, f"{where}, turn {i}") for i, t in enumerate(turns, 1))
        conversations.append(Conversation(cid, category.strip(), parsed))
    if not conversations:
        raise EvalSetError(f"{source} holds no conversations")
    return conversations


def load_conversations(path: Path) -> list[Conversation]:
    text = read_text(
        path,
        lambda message: EvalSetError(message, context={"path": str(path)}),
        lambda line, problem: EvalSetError(f"{path} line {line}: {problem}"),
    )
    return parse_conversations(text, str(path))


def select(
    conversations: list[Conversation], *, only: str | None = None, limit: int | None = None
) -> list[Conversation]:
    """Those of category ``only`` (the conversation's or one of its turns'), at most ``limit``."""
    if limit is not None and limit < 1:
        raise EvalSetError(f"--limit must be at least 1, not {limit}")
    chosen = [c for c in conversations if only is None or only in c.categories()]
    if only is not None and not chosen:
        known = sorted({cat for c in conversations for cat in c.categories()})
        raise EvalSetError(
            f"no conversation has the category {only!r}",
            recovery_suggestions=[f"Categories in this set: {', '.join(known)}"],
        )
    return chosen if limit is None else chosen[:limit]
