"""The reader (issue 28): grounded facts of what they said reach the voice's notes.

Unit level: ``ground`` keeps what is in their words and drops what is copied in the first
person, invented, or a "refusal" they never made. Turn level, on the scripted models: the
reading is logged as the reader's AGENT_COMPLETED, its facts are in the voice's notes, the
influence replay counts it, and a broken reader leaves the turn whole. ``agents.enabled``
off runs no agent at all (the configuration blind judging compares against).
"""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM, agent_answer
from rilai_desktop.store import EventLog
from rilai_desktop.turn.agents.reading import (
    READER_ID,
    SCHEMA,
    ground,
    refusal,
    their_messages,
    why_not_fact,
)
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.turn.speaking.readings_note import READINGS_OPENING, readings_block
from rilai_desktop.turn.speaking.voice_prompt import private_texts
from rilai_desktop.turn.state import TurnState
from tests.turn.conftest import PROMPTS

SAID = [
    "my grandpa died on tuesday",
    "everyone keeps saying he's in a better place and it makes me want to scream",
    "pls no advice. i just miss him",
]


def test_a_fact_in_their_words_is_kept_with_its_evidence() -> None:
    got = ground({"facts": ["Their grandpa died on Tuesday"], "not_wanted": "none"}, SAID)
    assert [r.text for r in got.facts] == ["Their grandpa died on Tuesday."]
    assert got.facts[0].evidence == "my grandpa died on tuesday"
    assert got.not_wanted == "" and not got.dropped


def test_copied_first_person_invented_and_repeated_facts_are_dropped() -> None:
    assert why_not_fact("He told me he's in a better place", SAID) == (
        "first person: copied, not read"
    )
    assert "not in what they wrote" in str(why_not_fact("They went to the beach yesterday", SAID))
    assert why_not_fact("Died", SAID) == "1 words"
    got = ground(
        {"facts": ["Their grandpa died.", "Their grandpa died", "I miss him"], "not_wanted": ""},
        SAID,
    )
    assert [r.text for r in got.facts] == ["Their grandpa died."]
    assert [d["reason"] for d in got.dropped] == ["said twice", "first person: copied, not read"]


def test_a_fact_that_only_says_back_this_message_is_dropped() -> None:
    """The voice reads this message itself; told it again as a fact, it said it back
    ("I understand that you are in the evenings, and the house is quiet after dinner")."""
    got = ground({"facts": ["They miss him."], "not_wanted": "advice"}, SAID)
    assert got.facts == () and got.not_wanted == "advice"
    assert got.dropped == ({"text": "They miss him.", "reason": "only says back this message"},)


def test_a_question_a_condition_or_a_turned_around_fact_is_dropped() -> None:
    """Measured on the corpus's test conversations before these checks (issue 28)."""
    yes = ["when my boss asks me to take on extra stuff. i always say yes and then hate myself"]
    assert why_not_fact("They say no when their boss asks for extra work.", yes) == (
        "turns around what they said"
    )
    asked = ["do you remember what i told you about my interview last week"]
    assert why_not_fact("They remember what you told them about their interview.", asked) == (
        "read from a question they asked"
    )
    rice = ["i burned the rice. how do you burn rice. it's literally rice and water"]
    assert why_not_fact("How to burn rice.", rice) == "not a fact"
    assert why_not_fact("They burned the rice.", rice) is None
    denied = ["you don't get it. i didn't ask for a therapist i said i had a shit day"]
    assert why_not_fact("They didn't ask for a therapist.", denied) is None


def test_the_reader_is_not_asked_where_safety_is_in_question(tmp_path: Path) -> None:
    from rilai_desktop.contracts import SensorOutput
    from rilai_desktop.turn.agents.reading import Reader
    from rilai_desktop.turn.safety_state import CAREFUL_FLAG

    model = ScriptedLLM(default={"facts": ["They are tired."], "not_wanted": ""})
    reader = Reader(model, "system")
    state = TurnState("s", 1, "everyone would be relieved if i stopped being around")
    state.sensors["safety_risk"] = SensorOutput(sensor="safety_risk", probability=0.6)
    assert reader.read(state, lambda kind, payload: None).facts == ()
    calm = TurnState("s", 2, "i am so tired of it all")
    calm.flags.add(CAREFUL_FLAG)
    assert reader.read(calm, lambda kind, payload: None).facts == ()
    assert model.requests == []


def test_quoted_words_are_not_first_person() -> None:
    assert (
        why_not_fact("People saying 'he's in a better place' makes them want to scream", SAID)
        is None
    )


def test_a_refusal_is_kept_only_where_they_said_no() -> None:
    assert refusal("advice", SAID) == "advice"
    assert refusal("to die slowly", ["so now i just sit here and die slowly i guess"]) == ""
    assert refusal("none", SAID) == ""
    assert refusal("advice about grief and loss and everything", SAID) == ""
    got = ground({"facts": [], "not_wanted": "pity"}, SAID)
    assert got.not_wanted == ""
    assert got.dropped == ({"text": "pity", "reason": "not something they said no to"},)


def test_the_reader_reads_only_their_own_last_three_messages() -> None:
    history = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "Rilai's line is never shown"},
        {"role": "user", "content": "two"},
        {"role": "user", "content": "three"},
    ]
    assert their_messages("four", history) == ["two", "three", "four"]


def test_a_reply_that_is_not_an_object_is_refused() -> None:
    try:
        ground(["a list"], SAID)
    except ValueError as exc:
        assert "not a JSON object" in str(exc)
    else:
        raise AssertionError("a list was accepted")


def test_the_block_and_what_of_it_is_private() -> None:
    state = TurnState("s", 1, SAID[-1])
    assert readings_block(state) == ""
    state.readings = ["Their grandpa died on Tuesday."]
    state.not_wanted = "advice"
    block = readings_block(state)
    assert block.startswith(READINGS_OPENING)
    assert "Their grandpa died on Tuesday." in block
    assert "They said they do not want advice: give none." in block
    private = private_texts(state, prompts=PROMPTS)
    assert READINGS_OPENING in private
    assert "They said they do not want advice: give none." in private
    assert "Their grandpa died on Tuesday." not in private  # the reply may use their words


def _runner(
    tmp_path: Path, reader: ScriptedLLM, voice: ScriptedLLM, *, agents: bool = True
) -> tuple[EventLog, TurnRunner]:
    log = EventLog(tmp_path / "rilai.db")
    council = ScriptedLLM(default={"intent": "witness", "tone": "gentle"}, model_id="medium")
    models = RoleModels(
        voice,
        {
            "agents": ScriptedLLM(default=agent_answer(), model_id="small"),
            "council": council,
            "voice": voice,
            "escalation": voice,
            "reader": reader,
        },
    )
    runner = build_turn_runner(
        events=log,
        models=models,
        memory=InMemoryTurnMemory(),
        prompts=PROMPTS,
        use_judge=False,
        agents=agents,
        readings=True,
    )
    return log, runner


def test_a_grounded_reading_reaches_the_voice_notes(tmp_path: Path) -> None:
    reader = ScriptedLLM(
        default={
            "facts": ["Their grandpa died on Tuesday.", "I want to scream"],
            "not_wanted": "no",
        },
        model_id="large",
    )
    voice = ScriptedLLM(default="I'm so sorry about your grandpa.", model_id="large")
    log, runner = _runner(tmp_path, reader, voice)
    try:
        runner.run_turn("my grandpa died on tuesday")
        assert reader.requests == []  # nothing earlier to keep to on a first message
        result = runner.run_turn("everyone says he's in a better place")
        request = reader.requests[-1]
        assert request.schema == SCHEMA
        assert request.messages[-1].content == (
            'They wrote: "my grandpa died on tuesday" then'
            ' "everyone says he\'s in a better place"\nNotes:'
        )
        notes = "\n".join(m.content for m in voice.requests[-1].messages)
        assert f"{READINGS_OPENING} Their grandpa died on Tuesday." in notes
        done = [
            e
            for e in log.events(kind=EventKind.AGENT_COMPLETED, turn_id=result.turn_id)
            if e.payload["agent_id"] == READER_ID
        ]
        assert len(done) == 1
        payload = done[0].payload
        assert payload["readings"] == [
            {"text": "Their grandpa died on Tuesday.", "evidence": "my grandpa died on tuesday"}
        ]
        assert payload["dropped_readings"][0]["reason"] == "first person: copied, not read"
        influence = result.state.agent_influence
        assert influence["changed_notes"] is True and influence["readings"] == 1
        assert influence["by_agent"][READER_ID] == {"decision": False, "notes": True}
    finally:
        log.close()


def test_a_failing_reader_leaves_the_turn_whole(tmp_path: Path) -> None:
    reader = ScriptedLLM(model_id="large")
    reader.enqueue_error(ModelCallError("the model fell over"))
    voice = ScriptedLLM(["That sounds like a long day."], default="More on top of it, then.")
    log, runner = _runner(tmp_path, reader, voice)
    try:
        runner.run_turn("work was a lot today")
        result = runner.run_turn("my manager piled on more")
        assert result.reply == "More on top of it, then."
        failed = log.events(kind=EventKind.AGENT_FAILED, turn_id=result.turn_id)
        assert [e.payload["agent_id"] for e in failed] == [READER_ID]
        notes = "\n".join(m.content for m in voice.requests[-1].messages)
        assert READINGS_OPENING not in notes
        assert result.state.agent_influence.get("readings", 0) == 0
    finally:
        log.close()


def test_agents_off_runs_no_agent_and_no_reader(tmp_path: Path) -> None:
    reader = ScriptedLLM(default={"facts": [], "not_wanted": "none"}, model_id="large")
    voice = ScriptedLLM(default="Tell me more?", model_id="large")
    log, runner = _runner(tmp_path, reader, voice, agents=False)
    try:
        result = runner.run_turn("i stayed up way too late again")
        started = log.events(kind=EventKind.AGENT_STARTED, turn_id=result.turn_id)
        assert started == [] and reader.requests == []
        assert result.reply == "Tell me more?"
    finally:
        log.close()


def test_wrong_types_are_refused_not_read_letter_by_letter() -> None:
    """Issue 30 (malformed output): "facts" as a string was read as a list of letters."""
    for parsed in ({"facts": "not a list", "not_wanted": ""}, {"facts": [], "not_wanted": 3}):
        try:
            ground(parsed, SAID)
        except ValueError as exc:
            assert "wrong types" in str(exc)
        else:
            raise AssertionError(f"{parsed} was accepted")


def test_a_fact_with_invalid_unicode_is_dropped_with_its_reason() -> None:
    """Issue 30: a model's invalid UTF-8 (lone surrogates) was kept in a reading."""
    bad = "Their grandpa died on Tuesday " + b"\xff".decode("utf-8", "surrogateescape")
    got = ground({"facts": [bad], "not_wanted": ""}, SAID)
    assert not got.facts
    assert [d["reason"] for d in got.dropped] == ["invalid characters"]
