"""Issue 28 on the real models, MiniLM, the multilingual encoder and the shipped
understanding model: sarcasm after bad news is read as what it means, a request to forget
is answered from the product facts (not "I can't remember or forget"), and the intent
reading is logged with the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.contracts import EngineEvent, EventKind

pytestmark = pytest.mark.e2e

TURNS = (
    "got an eviction notice today. 30 days to find a new place",
    "it's fine it's fine everything is fine 🙃",
    "can you forget what I told you about my ex?",
)


def test_meaning_and_product_facts_reach_the_reply(real_models: Path) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.turn.speaking import critic_patterns as P

    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    engine = open_engine(core)
    try:
        assert engine.runner.sensors.understanding is not None  # the shipped model is live
        events: list[EngineEvent] = []
        engine.subscribe(events.append)
        results = []
        for text in TURNS:
            result = engine.send(text).result()
            print(f"\n  > {text}\n  < {result.reply}")
            results.append(result)
        _news, sarcasm, forget = results
        # the sarcasm after bad news: not good news, not "you're in a good place"
        decision = sarcasm.state.decision
        assert decision is not None
        assert decision.speech_act.intent not in ("celebrate", "observe"), decision
        assert "good place" not in sarcasm.reply.lower()
        # the request to forget: meta, the product facts in the notes, a truthful reply
        decision = forget.state.decision
        assert decision is not None and decision.speech_act.intent == "meta"
        assert not P.find(P.PRODUCT_FALSE, forget.reply, negation="none"), forget.reply
        assert forget.state.sensor("prompt_injection") < 0.5
        truth = [c for c in forget.state.critics if c.critic == "truthfulness"]
        assert truth and truth[-1].passed, truth
        sensed = [e for e in events if e.kind is EventKind.SENSORS_FAST_UPDATED]
        assert len(sensed) == 3 and all("intent" in e.payload for e in sensed)
    finally:
        engine.close()
