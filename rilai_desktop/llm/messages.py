"""Chat-message helpers every model adapter shares (the real one and the scripted fake).

``as_messages`` normalises dicts to :class:`ChatMessage` and refuses an empty list or an
unknown role; ``split_reasoning`` strips ``<think>…</think>`` out of a reply. The port
itself (``LLM``, ``Completion``, ...) is ``contracts/llm.py``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rilai_desktop.contracts.llm import ChatMessage
from rilai_desktop.llm.errors import BadRequestError

__all__ = ["as_messages", "split_reasoning"]


def as_messages(messages: Sequence[ChatMessage | Mapping[str, str]]) -> list[ChatMessage]:
    """Normalise dicts to ChatMessages; refuse an empty list or an unknown role."""
    if not messages:
        raise BadRequestError(
            "The message list is empty; nothing to send to the model",
            recovery_suggestions=["Pass at least one {'role': 'user', 'content': ...} message"],
        )
    out: list[ChatMessage] = []
    for m in messages:
        if isinstance(m, ChatMessage):
            out.append(m)
            continue
        role, content = m.get("role"), m.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise BadRequestError(
                f"Bad chat message {dict(m)!r}: role must be system/user/assistant and"
                " content a string"
            )
        out.append(ChatMessage(role, content))  # type: ignore[arg-type]
    return out


_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Strip ``<think>…</think>`` blocks out of ``text``; return (text, reasoning)."""
    found = _THINK.findall(text)
    if not found:
        return text, None
    cleaned = _THINK.sub("", text).strip()
    return cleaned, "\n".join(s.strip() for s in found).strip() or None
