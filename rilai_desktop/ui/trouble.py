"""What the window says when something outside the person's control gets in the way.

``explain(error)``: the line for a turn (or another engine call) that failed — a database
another program holds, anything else with the error's own message — always saying that the
message was kept. ``missing_model_note(payload)``: a turn whose model file disappeared
still ends (the router falls back to a smaller tier, the voice to a plain reply), and its
ERROR / AGENT_FAILED events name the file; this turns them into one line that names it and
says how to put it back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from rilai_desktop.errors import DatabaseLockedError

KEPT = "Your message was kept in the input: send it again when you are ready."
_MISSING = re.compile(r"Model file not found: (.+?\.gguf)")
_TIER = re.compile(r"(?:No usable model for the|model tier) (small|medium|large)\b")


def explain(error: BaseException) -> str:
    message = str(getattr(error, "message", None) or f"{type(error).__name__}: {error}")
    if isinstance(error, DatabaseLockedError):
        return (
            f"Rilai's database is busy: another program holds it ({message}). "
            "Your message was kept in the input: try again in a moment."
        )
    return f"Something went wrong: {message.rstrip('.')}. {KEPT}"


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)


def missing_model_note(payloads: Iterable[Mapping[str, Any]]) -> str | None:
    """One line for every model file a turn found missing (None when none was)."""
    files: list[str] = []
    tiers: list[str] = []
    for payload in payloads:
        for text in _strings(payload):
            for path in _MISSING.findall(text):
                if path not in files:
                    files.append(path)
            for tier in _TIER.findall(text):
                if tier not in tiers:
                    tiers.append(tier)
    if not files:
        return None
    which = ", ".join(files)
    install = "rilai models install " + (" ".join(tiers) if tiers else "all")
    return (
        f"A model file is missing: {which}, so this reply could not use it. "
        f"To put it back, run `{install}`, or restart Rilai and install it from the window. "
        "Your message is kept in the conversation."
    )


_REMOTE = re.compile(r"the (\w+) tier's server at (\S+) did not answer")


def remote_down_note(payloads: Iterable[Mapping[str, Any]]) -> str | None:
    """One line when a tier on another machine failed this turn and the local model
    answered instead (``llm/remote.py``'s ERROR event); None otherwise."""
    for payload in payloads:
        for text in _strings(payload):
            if (found := _REMOTE.search(text)) and "answered locally" in text:
                tier, url = found.groups()
                return (
                    f"The {tier} tier's server at {url} did not answer, so this reply came "
                    "from the model on this computer."
                )
    return None
