"""Issue 20: the "why" panel of a real-model turn lists exactly the memory texts that were
in the voice prompt the model received.

Two real turns (default settings, the real models and memory): a fact in turn 1, a
question about it in turn 2. The router's voice model is wrapped in a thin recorder (the
real llama.cpp model underneath; it only keeps the messages each call received), so the
test compares the explanation (``Engine.explain_turn``, rebuilt from the log) with what
the model was really given: every listed memory text is in that prompt, and the prompt's
memory notes hold nothing else (the notes' memory block is exactly the listed lines).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

FACT = "My sister Maya lives in Lisbon."
QUESTION = "Do you remember where my sister Maya lives?"
VOICE_ROLES = ("voice", "escalation")


class RecordingModel:
    """A real model that keeps the messages each call received (not a mock: every call
    goes to the model underneath, unchanged)."""

    def __init__(self, model: Any, prompts: list[list[Any]]) -> None:
        self._model, self._prompts = model, prompts

    @property
    def model_id(self) -> str:
        return str(self._model.model_id)

    def complete(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        self._prompts.append(list(messages))
        return self._model.complete(messages, **kwargs)

    def prefill(self, messages: Sequence[Any]) -> int:
        prefill = getattr(self._model, "prefill", None)
        return int(prefill(messages)) if callable(prefill) else 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


def _text(message: Any) -> str:
    if isinstance(message, Mapping):
        return str(message.get("content", ""))
    return str(message.content)


def test_the_why_panel_lists_exactly_the_memory_in_the_voice_prompt(real_models: Path) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.turn.speaking.voice_prompt import (
        ASKED_OPENING,
        MEMORY_OPENING,
        NOTES_OPENING,
    )

    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    engine = open_engine(core)
    prompts: list[list[Any]] = []
    router = engine.parts.runner.speaking.models
    for_role = router.for_role

    def recording_for_role(role: str, replica: int = 0) -> Any:
        model = for_role(role, replica)
        return RecordingModel(model, prompts) if role in VOICE_ROLES else model

    router.for_role = recording_for_role  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        engine.send(FACT).result()
        prompts.clear()
        second = engine.send(QUESTION).result()
        took = time.perf_counter() - started
        why = engine.explain_turn(engine.session_id, second.turn_id)
    finally:
        engine.close()

    voice_prompts = [p for p in prompts if any(NOTES_OPENING in _text(m) for m in p)]
    assert voice_prompts, "the voice model was never asked for the second reply"
    memory_texts = [m.text for m in why.memories] + [p.text for p in why.passages]
    print(f"\n  two turns in {took:.1f} s; reply 2: {second.reply!r}")
    print(f"  voice calls in turn 2: {len(voice_prompts)}")
    print(f"  why lists: {[(m.kind, m.entry_id[:8], m.text) for m in why.memories]}")
    assert why.memory_logged
    assert any("Lisbon" in text for text in memory_texts), "the fact should reach the prompt"
    for prompt in voice_prompts:  # every attempt (a regeneration too) had the same notes
        text = "\n".join(_text(m) for m in prompt)
        notes = next(_text(m) for m in prompt if NOTES_OPENING in _text(m))
        # each listed text appears in the prompt the model received ...
        for listed in memory_texts:
            assert listed in text, listed
        # ... and every memory text the prompt holds is listed: the notes' memory block is
        # exactly "<opening> " + the listed lines joined by "; " + ".", and nothing else
        in_order = sorted(memory_texts, key=notes.find)
        block = "; ".join(in_order) + "."
        openings = [o for o in (MEMORY_OPENING, ASKED_OPENING) if o in notes]
        assert len(openings) == 1, notes
        assert notes.startswith(f"{NOTES_OPENING} {openings[0]} {block} "), notes
        assert notes.count(openings[0]) == 1
