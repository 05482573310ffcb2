"""Untrusted text made safe for a prompt (the voice's, the agents'): no chat-template
tokens, control characters or our own ``<<<``/``>>>`` markers, whitespace collapsed, the
length capped at a word boundary. Split from ``voice_prompt.py``, which re-exports it."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_RAW_CAP: Final[int] = 50_000  # bound the regex work on absurd inputs
_SPACE_RUNS = re.compile(r"\s+")

# Chat-template tokens of the model families we run or may be pointed at (ChatML, Llama 2/3,
# Mistral, Gemma, Phi), plus <think> tags. Matched case-insensitively, removed everywhere.
_TEMPLATE_TOKENS = re.compile(
    r"<\|[^|<>\n]{0,40}\|>|\[/?INST\]|<</?SYS>>|</?s>|<(?:start|end)_of_turn>|</?think>",
    re.IGNORECASE,
)
_MARKER_RUNS = re.compile(r"<{3,}|>{3,}")
_SPACES = frozenset("\n\t\r\f\v\x85\u2028\u2029")
_INVISIBLE = frozenset("\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\ufeff")
_INVISIBLE |= frozenset("\u2066\u2067\u2068\u2069")


def _drop_char(ch: str) -> str:
    """Whitespace controls become a space; other controls, surrogates, bidi marks vanish."""
    if ch in _SPACES:
        return " "
    if ch in _INVISIBLE:
        return ""
    category = unicodedata.category(ch)
    return "" if category in ("Cc", "Cs", "Co") else ch


def strip_controls(text: str) -> str:
    """Remove control/invisible characters (keeping whitespace as spaces)."""
    if text.isprintable():
        return text
    return "".join(_drop_char(ch) for ch in text)


def strip_template_tokens(text: str) -> str:
    """Remove chat-template tokens and our ``<<<``/``>>>`` markers, until none re-form."""
    for _ in range(8):  # removing one token can join the halves of another
        cleaned = _MARKER_RUNS.sub(lambda m: m.group(0)[:2], _TEMPLATE_TOKENS.sub("", text))
        if cleaned == text:
            break
        text = cleaned
    return text


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary where one is near."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit * 0.6:
        head = head[:space]
    return head.rstrip(" ,;:-") + "…"


def clean_text(text: object, limit: int) -> str:
    """Untrusted text made safe for the prompt: one line, no template tokens, ≤ ``limit``."""
    if not isinstance(text, str) or not text:
        return ""
    text = strip_controls(text[:_RAW_CAP])
    text = strip_template_tokens(text)
    return cut(_SPACE_RUNS.sub(" ", text).strip(), limit)
