"""memory.used lists what the voice's prompt holds, not what recall found: on the turn rig
(the in-memory memory fake), where recall's result can be shaped exactly."""

from __future__ import annotations

from rilai_desktop.app.explain import explain_turn
from rilai_desktop.contracts import EventKind
from rilai_desktop.turn.speaking.voice_prompt import MAX_THREADS, MIN_FACT_WORDS
from tests.turn.conftest import Rig


def test_retrieved_but_dropped_entries_are_not_listed(rig: Rig) -> None:
    # three open threads are recalled; the notes keep MAX_THREADS of them. A two-word fact
    # is recalled too, and dropped as no fact about them (MIN_FACT_WORDS).
    rig.memory.threads = [
        {"id": "g1", "title": "call the landlord about the boiler"},
        {"id": "g2", "title": "finish the grant application"},
        {"id": "g3", "title": "book the dentist appointment"},
    ]
    rig.memory.facts = [
        {"id": "f1", "fact": "Tired Lisbon", "category": "other"},
        {"id": "f2", "fact": "Their sister Maya lives in Lisbon", "category": "other"},
    ]
    assert MAX_THREADS == 2 and MIN_FACT_WORDS == 3
    result = rig.runner.run_turn("I keep thinking about Lisbon and Maya lately.")
    events = rig.log.events(session_id=rig.runner.session_id, turn_id=result.turn_id)
    retrieved = next(e for e in events if e.kind is EventKind.MEMORY_RETRIEVED).payload
    assert {t["id"] for t in retrieved["open_threads"]} == {"g1", "g2", "g3"}
    assert {f["id"] for f in retrieved["user_facts"]} == {"f1", "f2"}

    why = explain_turn(events)

    listed = {(m.kind, m.entry_id) for m in why.memories}
    assert ("goal", "g3") not in listed  # over the cap: retrieved, never in the prompt
    assert ("fact", "f1") not in listed  # too short to be a note
    assert {("goal", "g1"), ("goal", "g2"), ("fact", "f2")} <= listed
    text = "\n".join(m.content for m in rig.voice.requests[-1].messages)
    assert "dentist" not in text and "Tired Lisbon" not in text
    for memory in why.memories:
        assert memory.text in text
