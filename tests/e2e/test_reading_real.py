"""Issue 28 on the real models: the reader's grounded reading (the large tier) reaches the
voice's notes, and the reply does not turn it around.

The widower's evenings were answered "I understand your wife's pain and suffering… a
difficult time for her" before there was a reader (a blind judge's example): whose loss it
is was misread. With the reading "Their wife died two years ago." in the notes, the reply
must not speak of her pain or of a hard time for her.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.contracts import EngineEvent, EventKind

pytestmark = pytest.mark.e2e

TURNS = (
    "my wife died two years ago. most days are ok now",
    "it's the evenings. the house is so quiet after dinner",
)
MISREAD = ("her pain", "for her", "her suffering", "she is going through", "she's going through")


def test_a_grounded_reading_reaches_the_notes_and_the_reply_keeps_to_it(
    real_models: Path,
) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.turn.agents.reading import READER_ID
    from rilai_desktop.turn.speaking.readings_note import READINGS_OPENING

    paths = resolve_paths()
    settings = load_settings(paths.settings_file).settings
    assert not settings.agents.readings  # off by default (docs/agents.md, "The reader")
    settings.agents.readings = True
    core = build_core(paths, settings)
    engine = open_engine(core)
    try:
        events: list[EngineEvent] = []
        engine.subscribe(events.append)
        results = [engine.send(text).result() for text in TURNS]
        for text, result in zip(TURNS, results, strict=True):
            print(f"\n  > {text}\n  < {result.reply}\n    readings: {result.state.readings}")
        last = results[-1]
        read = [
            e
            for e in events
            if e.kind is EventKind.AGENT_COMPLETED
            and e.payload.get("agent_id") == READER_ID
            and e.turn_id == last.turn_id
        ]
        assert len(read) == 1, "the reader ran once on the last turn"
        facts = [r["text"] for r in read[0].payload["readings"]]
        assert facts and facts == last.state.readings, read[0].payload
        assert any("wife" in f.lower() for f in facts), facts
        rendered = [
            e for e in events if e.kind is EventKind.VOICE_RENDERED and e.turn_id == last.turn_id
        ]
        prompt = str(rendered[-1].payload.get("prompt", ""))
        assert READINGS_OPENING in prompt and facts[0] in prompt, prompt
        assert last.state.agent_influence["changed_notes"] is True
        reply = last.reply.lower()
        assert reply and not any(m in reply for m in MISREAD), last.reply
        assert READINGS_OPENING.lower() not in reply  # the notes are not read aloud
    finally:
        engine.close()
