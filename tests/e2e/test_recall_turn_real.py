"""Issue 17: after a 40-turn conversation, the real turn answers what was said in turn 5.

The person's first 39 messages go into memory through the turn's own commit path (the
memory bridge, rules extraction, turn records: what a live turn stores; their replies are
not generated, which would take ~15 minutes here and store nothing more), then the 40th
message runs through the whole real turn (default settings, the large voice): "what did I
say I was researching?" must be answered with what they said in turn 5.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

RESEARCH = (
    "I've been researching the history of azulejo tiles for a little podcast I want to start."
)
OTHERS = [
    "morning! slept badly again",
    "the neighbours were moving furniture at midnight",
    "coffee is helping a bit",
    "work starts at nine today",
    "my manager wants the report by Friday",
    "I had soup for lunch, nothing exciting",
    "it's raining here all week",
    "I called my brother, he's doing fine",
    "we talked about his kids mostly",
    "I should go to the gym tonight",
    "skipped the gym, too tired",
    "watched a documentary about octopuses instead",
    "they can taste with their arms, apparently",
    "new week, new start",
    "the report went well actually",
    "my manager said thanks, which is rare",
    "I'm thinking of repainting the kitchen",
    "maybe a pale green",
    "my friend Sara says green is a bad idea",
    "she thinks white is safer",
    "I bought a plant for the balcony",
    "it's a lemon tree, small one",
    "the bus was late twice this week",
    "I might start cycling to work",
    "my bike needs new brakes first",
    "the repair shop is closed on Mondays",
    "I finished a really long novel last night",
    "it was about a lighthouse family",
    "the ending made me cry a little",
    "today was quiet",
    "I cooked rice and beans",
    "Sara came over for dinner",
    "we played cards until late",
    "she won every game",
    "back at work tomorrow",
    "my brother called again about the holidays",
    "we might all meet at our parents' place",
    "I need to buy a train ticket soon",
]


def test_turn_forty_remembers_turn_five(real_models: Path) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.app.memory_bridge import MemoryBridge
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.turn.ports import CommitPlan

    messages = [*OTHERS[:4], RESEARCH, *OTHERS[4:]]
    assert len(messages) == 39 and messages[4] == RESEARCH
    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    engine = open_engine(core)
    try:
        assert engine.parts.memory is not None
        bridge = MemoryBridge(engine.parts.memory)
        session = engine.session_id
        for n, text in enumerate(messages, 1):
            bridge.commit(CommitPlan(session, n, text, reply="", candidates=[], extract_items=True))
        result = engine.send("what did I say I was researching?").result()
        print(f"\n  turn 40 reply: {result.reply!r}")
        reply = result.reply.lower()
        assert "azulejo" in reply or "tile" in reply, result.reply
    finally:
        engine.close()  # the log too
