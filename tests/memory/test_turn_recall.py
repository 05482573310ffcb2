"""Issue 17 on the fakes: turn records, names as speakers, questions with their answers,
dates, and what the turn's notes read."""

from __future__ import annotations

from datetime import UTC, datetime

from rilai_desktop.app.memory_bridge import MemoryBridge, said_line
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.memory.dates import resolve
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.memory.query_plan import plan
from rilai_desktop.memory.types import TURN_KIND, Turn

MAY8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def conversation() -> list[Turn]:
    """Caroline's name is mostly in Melanie's turns; what Caroline researched is said once,
    without her name, in reply to a question."""
    lines = [
        ("Caroline", "Hey Mel! I went to a support group yesterday."),
        ("Melanie", "Wow, Caroline, that sounds amazing! Caroline, what inspired it?"),
        ("Caroline", "The stories there. I have been reading a lot lately."),
        ("Melanie", "Caroline, you always amaze me, Caroline!"),
        ("Melanie", "What did you research this week?"),
        ("Caroline", "Adoption agencies, mostly. I want to give a kid a home."),
        ("Melanie", "I ran a charity race last Saturday, by the way."),
    ]
    return [
        Turn(id=f"D1:{n}", speaker=who, text=text, at=MAY8)
        for n, (who, text) in enumerate(lines, 1)
    ]


def ingest(manager: MemoryManager) -> None:
    manager.ingest_sessions([(conversation(), {"session_id": "s1"})], mode="rules")


def turns_of(manager: MemoryManager, query: str, k: int = 3) -> list[list[str]]:
    return [i.source_turn_ids for i in manager.retrieve(query, mode="rag", k=k).items]


def test_a_question_plan_takes_known_names_out_of_the_words() -> None:
    asked = plan("What did Caroline's group do?", {"Caroline", "Melanie"})
    assert asked.named == {"Caroline"} and asked.matched == "What did group do?"
    assert plan("What did I say?", {"user"}).named == {"user"}
    assert plan("Caroline?", {"Caroline"}).matched == "Caroline?"  # nothing else to match
    assert not plan("What about Bob?", {"Caroline"}).named


def test_every_persons_turn_is_a_record_with_its_speaker_and_date(
    manager: MemoryManager,
) -> None:
    ingest(manager)
    records = [i for i in manager.item_layer.valid_candidates(100) if i.kind == TURN_KIND]
    assert len(records) == 7
    first = next(r for r in records if r.source_turn_ids == ["D1:1"])
    assert first.speaker == "Caroline" and first.valid_at == MAY8
    assert first.dates == [{"phrase": "yesterday", "date": "2023-05-07", "label": "7 May 2023"}]
    assert manager.item_layer.speakers() == {"Caroline", "Melanie"}


def test_the_speakers_follow_new_records_without_reading_the_table_again(
    manager: MemoryManager,
) -> None:
    """The soak found the DISTINCT over every turn record run after each turn: the known
    set now takes a batch's new speakers in, and a bulk delete still reads it again."""
    ingest(manager)
    layer = manager.item_layer
    assert layer.speakers() == {"Caroline", "Melanie"}
    reads: list[str] = []
    manager._core.db.connection.set_trace_callback(reads.append)  # type: ignore[attr-defined]
    try:
        later = [Turn(id="D2:1", speaker="Jon", text="I started a dance studio.", at=MAY8)]
        manager.ingest_sessions([(later, {"session_id": "s2"})], mode="rules")
        assert layer.speakers() == {"Caroline", "Melanie", "Jon"}
    finally:
        manager._core.db.connection.set_trace_callback(None)  # type: ignore[attr-defined]
    assert not [sql for sql in reads if "DISTINCT speaker" in sql]
    layer.forget_speakers()
    assert layer.speakers() == {"Caroline", "Melanie", "Jon"}


def test_a_question_about_someone_prefers_what_they_said(manager: MemoryManager) -> None:
    ingest(manager)
    hits = manager.retrieve("What did Caroline research?", mode="rag", k=3).items
    said = [i for i in hits if i.kind == TURN_KIND]
    assert said and said[0].speaker in {"Caroline", "Melanie"}
    # the answer is found: as Caroline's own turn or attached to Melanie's question
    assert any("D1:6" in i.source_turn_ids for i in hits)


def test_a_question_comes_back_with_its_answer(manager: MemoryManager) -> None:
    ingest(manager)
    hits = manager.retrieve("what did you research this week", mode="rag", k=1).items
    assert hits[0].source_turn_ids == ["D1:5", "D1:6"]
    assert hits[0].content == (
        "What did you research this week?\nCaroline: Adoption agencies, mostly."
        " I want to give a kid a home."
    )
    stored = manager.get_item(hits[0].item_id)
    assert stored is not None and stored.content == "What did you research this week?"


def test_a_turn_is_said_once_in_the_hits(manager: MemoryManager) -> None:
    ingest(manager)
    hits = manager.retrieve("charity race last Saturday", mode="rag", k=10).items
    turns = [tuple(i.source_turn_ids) for i in hits if i.kind == TURN_KIND]
    assert len(turns) == len(set(turns))


def test_relative_dates_resolve_against_the_session_date() -> None:
    assert [(d.phrase, d.label) for d in resolve("we met last year, two days ago", MAY8)] == [
        ("last year", "2022"),
        ("two days ago", "6 May 2023"),
    ]
    assert resolve("I ran last Saturday", MAY8)[0].date == "2023-05-06"  # 8 May was a Monday
    assert resolve("nothing relative here", MAY8) == []


def test_the_notes_say_who_said_it_and_when(manager: MemoryManager) -> None:
    ingest(manager)
    recall = MemoryBridge(manager, k_items=5, clock=FakeClock(MAY8)).recall("Melanie charity race")
    line = next(i["content"] for i in recall.items if "charity" in i["content"])
    assert line == (
        "earlier today Melanie said: I ran a charity race last Saturday, by the way."
        " (last Saturday = 6 May 2023)"
    )
    record = manager.item_layer.valid_candidates(100)[0].model_copy(
        update={"kind": TURN_KIND, "speaker": "user", "content": "I love tea", "dates": []}
    )
    assert said_line(record, MAY8.replace(year=2024)) == "on 8 May 2023 they said: I love tea"
    assert said_line(record, MAY8.replace(day=9)) == "yesterday they said: I love tea"
    assert said_line(record, MAY8.replace(day=12)) == "on Monday they said: I love tea"
    assert said_line(record, MAY8.replace(month=9)) == "on 8 May they said: I love tea"


def test_the_verbs_of_asking_are_not_matched() -> None:
    asked = plan("what did I say I was researching?", {"user"})
    assert asked.matched == "what did I I was researching?"
    assert plan("Do you remember Caroline?", {"Caroline"}).matched == "Do you remember Caroline?"


def test_first_and_latest_prefer_the_oldest_and_newest_said(manager: MemoryManager) -> None:
    from datetime import timedelta

    turns = [
        Turn(id=f"t{n}", speaker="Ana", text=f"I play the cello in the orchestra ({tag}).", at=at)
        for n, (tag, at) in enumerate([("spring", MAY8), ("autumn", MAY8 + timedelta(days=150))], 1)
    ]
    for turn in turns:
        manager.ingest_sessions([([turn], {"session_id": turn.id})], mode="rules")
    assert plan("When did Ana first play?", {"Ana"}).order == -1
    assert plan("What does Ana play these days?", {"Ana"}).order == 1
    first = manager.retrieve("When did Ana first play the cello?", mode="rag", k=1).items[0]
    latest = manager.retrieve("What does Ana play these days?", mode="rag", k=1).items[0]
    assert first.source_turn_ids == ["t1"] and latest.source_turn_ids == ["t2"]


def test_the_model_is_never_offered_the_turn_kind() -> None:
    # the real medium model answered kind "turn" when the schema offered it (KeyError)
    from rilai_desktop.memory.extraction import KIND_CATEGORIES, LLM_KINDS

    assert "turn" not in LLM_KINDS and "utterance" not in LLM_KINDS
    assert all(kind in KIND_CATEGORIES for kind in LLM_KINDS)


def test_the_same_words_in_a_new_turn_are_stored_and_the_same_turn_is_not(
    manager: MemoryManager,
) -> None:
    """A recurring message ("How are you?") is a new conversation each time; the same
    turns again are recognised (by their ids, narrowed in SQLite, not by loading each
    resource with that text)."""

    def said(turn_id: str) -> list[Turn]:
        return [Turn(id=turn_id, speaker="user", text="How are you?", at=MAY8)]

    first = manager.ingest_turns(said("t1"), mode="rules")
    second = manager.ingest_turns(said("t2"), mode="rules")
    assert second.resource.resource_id != first.resource.resource_id
    assert not second.warnings
    again = manager.ingest_turns(said("t2"), mode="rules")
    assert again.warnings == [f"already ingested: {second.resource.resource_id}"]
