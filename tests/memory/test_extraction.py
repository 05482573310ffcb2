"""Memory extraction: the deterministic rules, the model extractor and the modes."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rilai_desktop.errors import ExtractionError, MemoryInputError
from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.memory.extraction import (
    KIND_CATEGORIES,
    LLMExtractor,
    RuleExtractor,
    extract_drafts,
)
from rilai_desktop.memory.types import ITEM_KINDS, ItemDraft, Turn

AT = datetime(2026, 1, 11, 10, 0, tzinfo=UTC)


def user(text: str, id: str = "t1", at: datetime = AT) -> Turn:
    return Turn(id=id, speaker="User", text=text, at=at)


def bot(text: str, id: str = "b1") -> Turn:
    return Turn(id=id, speaker="Rilai", text=text, at=AT, is_user=False)


def rules(*texts: str, **kwargs: Any) -> list[ItemDraft]:
    return RuleExtractor().extract([user(t, f"t{n}") for n, t in enumerate(texts)], **kwargs)


def one(text: str) -> ItemDraft:
    drafts = rules(text)
    assert len(drafts) == 1, drafts
    return drafts[0]


class Sleeps:
    """A fake ``sleep`` that records what it was asked to wait."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@dataclass
class _Text:
    text: str


class RawTextModel:
    """A model that answers raw text, unchecked against the schema (a broken grammar)."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls = 0

    @property
    def model_id(self) -> str:
        return "raw"

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
    ) -> Any:
        self.calls += 1
        return _Text(self.replies.pop(0))


def item(content: str, *ids: str, kind: str = "preference", **kw: str) -> dict[str, Any]:
    return {
        "content": content,
        "kind": kind,
        "importance": kw.get("importance", "normal"),
        "confidence": kw.get("confidence", "high"),
        "turn_ids": list(ids or ("t1",)),
    }


# ── rules: each kind ─────────────────────────────────────────────────────────

KINDS = [
    ("I love hiking in the mountains.", "preference"),
    ("I really can’t stand cilantro 🤢", "preference"),
    ("Ｉ ｌｏｖｅ ｓｕｓｈｉ", "preference"),  # full-width letters
    ("i'm a big fan of jazz", "preference"),
    ("I hate it when people are late.", "preference"),
    ("Please don't bring up my ex.", "boundary"),
    ("Don’t ask me about my dad 🙏", "boundary"),
    ("I'd rather not talk about work.", "boundary"),
    ("never call me Bobby", "boundary"),
    ("Can you please not mention the divorce?", "boundary"),  # a boundary may be a question
    ("I need to finish the report by Friday.", "commitment"),
    ("My thesis is due on the 14th!", "commitment"),
    ("I have a dentist appointment on March 3", "commitment"),
    ("I promised Mum I’d call her tomorrow", "commitment"),
    ("I've decided to quit my job.", "decision"),
    ("I’m going to stop drinking coffee ☕", "decision"),
    ("From now on I only run in the mornings.", "decision"),
    ("Honesty matters a lot to me.", "value"),
    ("I believe everyone deserves a second chance.", "value"),
    ("What I care about most is my family.", "value"),
    ("It’s important to me that my kids feel safe.", "value"),
    ("My goal is to run a marathon.", "goal"),
    ("I want to read 20 books by the end of the year", "goal"),
    ("I'm training for a half marathon 🏃", "goal"),
    ("I had a really rough day at work.", "event"),
    ("I’m so stressed about everything 😩", "event"),
    ("We had a huge fight last night.", "event"),
    ("I got promoted!!", "event"),
]


@pytest.mark.parametrize(("text", "kind"), KINDS)
def test_each_kind_is_recognised_in_several_phrasings(text: str, kind: str) -> None:
    draft = one(text)
    assert draft.kind == kind
    assert draft.category == KIND_CATEGORIES[kind]
    assert draft.content == text.strip()  # the user's own sentence, nothing invented
    assert 0.6 <= draft.confidence <= 0.8
    assert draft.source_turn_ids == ["t0"]
    assert draft.valid_at == AT


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("I live in Lisbon now.", "lives_in"),
        ("I’ve just moved to Berlin!", "lives_in"),
        ("i'm based in Toronto these days", "lives_in"),
        ("I work as a nurse at the city hospital.", "job"),
        ("I'm a software engineer", "job"),
        ("My job is teaching kids to swim.", "job"),
        ("I grew up in Porto", "grew_up_in"),
        ("I'm 34 years old", "age"),
        ("I just turned 30 🎉", "age"),
        ("My dog Biscuit is a menace", "pet_name"),
        ("my cat is called luna", "pet_name"),
        ("my girlfriend is named Sam", "partner_name"),
        ("My mum's name is Rosa", "mother_name"),
        ("My sister’s name is Maya", None),
        ("I'm allergic to peanuts.", None),
    ],
)
def test_biography_carries_a_slot_for_single_valued_facts(text: str, slot: str | None) -> None:
    draft = one(text)
    assert (draft.kind, draft.category, draft.slot) == ("biography", "biography", slot)


def test_boundaries_commitments_and_allergies_are_high_importance() -> None:
    assert one("Please don't call me buddy.").importance == "high"
    assert one("I need to pay rent by the 1st.").importance == "high"
    assert one("I'm allergic to peanuts.").importance == "high"
    assert one("I love tea.").importance == "normal"
    assert one("I had a great day today!").importance == "normal"


def test_a_commitment_keeps_its_deadline_in_the_content() -> None:
    draft = one("ugh, I have to submit the tax form before next Monday")
    assert draft.kind == "commitment"
    assert "before next Monday" in draft.content


def test_favourite_things_get_their_own_slot() -> None:
    draft = one("My favourite colour is teal")
    assert (draft.kind, draft.slot) == ("preference", "favourite_colour")
    assert one("My favorite band is Radiohead.").slot == "favourite_band"


@pytest.mark.parametrize(
    "text",
    [
        "I love you so much",  # about Rilai, not a preference
        "I like that",
        "My dog is sick",  # no name: not a pet-name fact
        "I'm not stressed",
        "I’m 200 years old",  # not an age
    ],
)
def test_near_misses_draft_nothing(text: str) -> None:
    assert rules(text) == []


def test_questions_are_not_taken_as_facts_but_still_fall_back() -> None:
    draft = one("Do you think I should quit by Friday?")
    assert draft.kind == "utterance"


def test_several_sentences_in_one_turn_give_several_drafts_in_order() -> None:
    drafts = rules("I live in Lisbon. Honestly I hate cilantro! Anyway, see you.")
    assert [(d.kind, d.content) for d in drafts] == [
        ("biography", "I live in Lisbon."),
        ("preference", "Honestly I hate cilantro!"),
    ]


def test_abbreviations_do_not_split_a_sentence() -> None:
    draft = one("I have an appointment with Dr. Okafor on the 14th.")
    assert draft.kind == "commitment"
    assert draft.content == "I have an appointment with Dr. Okafor on the 14th."


def test_assistant_turns_are_ignored() -> None:
    turns = [bot("I love sushi and I live in Paris. Please don't call me late.")]
    assert RuleExtractor().extract(turns) == []


@pytest.mark.parametrize(
    "text", ["haha yes", "ok talk tomorrow", "thanks!", "lol ok ok haha yes thanks bye", ""]
)
def test_filler_and_empty_turns_draft_nothing(text: str) -> None:
    assert rules(text) == []


# ── rules: the fallback ──────────────────────────────────────────────────────


def test_a_substantive_turn_no_rule_matched_becomes_one_utterance() -> None:
    draft = one("The meeting with the landlord went sideways and nobody knows why.")
    assert draft.kind == "utterance"
    assert draft.category == "conversation"
    assert (draft.confidence, draft.importance) == (0.5, "low")
    assert draft.content == "The meeting with the landlord went sideways and nobody knows why."


def test_no_fallback_when_a_rule_matched_the_turn() -> None:
    drafts = rules("I love tea. Also the weather here has been very odd all week long.")
    assert [d.kind for d in drafts] == ["preference"]


def test_short_turns_do_not_fall_back() -> None:
    assert rules("Went to the shop.") == []


def test_a_long_utterance_is_cut_at_a_sentence_boundary() -> None:
    sentence = "The bus was late again and the driver said nothing at all to anyone. "
    draft = one(sentence * 20)
    assert draft.kind == "utterance"
    assert len(draft.content) <= 600
    assert draft.content.endswith("anyone.")


def test_a_long_utterance_without_sentences_is_cut_at_a_word() -> None:
    draft = one("word " * 300)
    assert len(draft.content) <= 600
    assert draft.content.endswith("word…")


# ── rules: hint, dedupe ──────────────────────────────────────────────────────


def test_category_hint_overrides_every_category() -> None:
    drafts = rules(
        "I love tea.",
        "The landlord called twice this morning about the broken heater.",
        category_hint="home_life",
    )
    assert [d.kind for d in drafts] == ["preference", "utterance"]
    assert {d.category for d in drafts} == {"home_life"}


@pytest.mark.parametrize("hint", ["Home Life", "", "x" * 65, "bad-name"])
def test_a_bad_category_hint_is_refused(hint: str) -> None:
    with pytest.raises(MemoryInputError, match="category_hint"):
        rules("I love tea.", category_hint=hint)


def test_identical_content_is_one_draft_with_every_turn() -> None:
    later = AT + timedelta(days=3)
    turns = [
        user("I love sushi.", "t1"),
        user("I  LOVE sushi!", "t2", at=later),
        user("I live in Oslo.", "t3"),
        user("I love sushi.", "t4", at=AT),
    ]
    drafts = RuleExtractor().extract(turns)
    assert [d.kind for d in drafts] == ["preference", "biography"]
    assert drafts[0].source_turn_ids == ["t1", "t2", "t4"]
    assert drafts[0].valid_at == later  # the latest mention


# ── rules: hostile input ─────────────────────────────────────────────────────


def test_a_100kb_turn_gives_at_most_one_bounded_utterance() -> None:
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 1800
    assert len(text) > 100_000
    drafts = rules(text)
    assert len(drafts) == 1
    assert drafts[0].kind == "utterance"
    assert len(drafts[0].content) <= 600


def test_a_100kb_turn_of_one_repeated_fact_is_one_draft() -> None:
    assert [d.content for d in rules("I love sushi. " * 8000)] == ["I love sushi."]


def test_a_100kb_word_without_spaces_drafts_nothing() -> None:
    assert rules("a" * 100_000) == []


@pytest.mark.parametrize(
    "junk",
    [
        bytes(range(256)).decode("latin-1") * 40,
        "\x00\xff\xfe\x01" * 5000,
        random.Random(1).randbytes(100_000).decode("latin-1"),
        random.Random(2).randbytes(100_000).decode("utf-8", "replace"),
        random.Random(3).randbytes(100_000).decode("utf-8", "surrogateescape"),
    ],
)
def test_binary_junk_drafts_nothing(junk: str) -> None:
    assert rules(junk) == []


def test_junk_characters_are_cleaned_out_of_a_real_fact() -> None:
    text = b"\xfe I live in Oslo\x00 with my two cats".decode("utf-8", "surrogateescape")
    draft = one(text)
    assert draft.slot == "lives_in"
    assert draft.content == "I live in Oslo with my two cats"
    draft.content.encode("utf-8")  # no lone surrogates left to break SQLite or JSON


# ── the model extractor ──────────────────────────────────────────────────────

CHAT = [
    user("I adopted a puppy called Biscuit last week.", "t1"),
    bot("That's lovely! What breed is Biscuit?", "b1"),
    user("A beagle. Also I've gone vegan since January and I cook a lot.", "t2"),
]


def test_llm_happy_path_builds_drafts_from_a_checked_reply() -> None:
    llm = ScriptedLLM(model_id="tiny")
    llm.enqueue(
        {
            "items": [
                item("Has a beagle puppy named Biscuit", "t1", "t2", kind="biography"),
                item("Is vegan and cooks a lot", "t2", confidence="medium", importance="high"),
            ]
        }
    )
    drafts = LLMExtractor(llm).extract(CHAT)
    assert [(d.content, d.kind, d.category, d.confidence, d.importance) for d in drafts] == [
        ("Has a beagle puppy named Biscuit", "biography", "biography", 0.9, "normal"),
        ("Is vegan and cooks a lot", "preference", "preferences", 0.7, "high"),
    ]
    assert drafts[0].source_turn_ids == ["t1", "t2"]
    assert drafts[0].valid_at == AT

    (request,) = llm.requests
    assert request.max_tokens == 400
    lines = request.messages[-1].content.splitlines()
    assert lines == [
        "[t1] User: I adopted a puppy called Biscuit last week.",
        "[b1] Rilai: That's lovely! What breed is Biscuit?",
        "[t2] User: A beagle. Also I've gone vegan since January and I cook a lot.",
    ]
    assert request.schema is not None
    props = request.schema["properties"]["items"]
    assert props["maxItems"] == 6
    fields = props["items"]["properties"]
    assert fields["kind"]["enum"] == [k for k in ITEM_KINDS if k not in ("utterance", "turn")]
    assert fields["importance"]["enum"] == ["low", "normal", "high"]
    assert fields["confidence"]["enum"] == ["low", "medium", "high"]
    assert fields["turn_ids"]["items"]["enum"] == ["t1", "t2"]  # the user's turns only
    assert fields["turn_ids"]["maxItems"] == 3
    assert fields["content"]["maxLength"] == 200
    assert props["items"]["additionalProperties"] is False


def test_llm_category_hint_overrides_the_kind_default() -> None:
    llm = ScriptedLLM([{"items": [item("Adopted a puppy called Biscuit", "t1")]}])
    (draft,) = LLMExtractor(llm).extract(CHAT, category_hint="pets")
    assert draft.category == "pets"


def test_llm_parroting_repeats_and_ungrounded_items_are_dropped() -> None:
    llm = ScriptedLLM()
    llm.enqueue(
        {
            "items": [
                item("List durable facts about the user", "t1"),
                item("Write each fact as one short sentence about the user.", "t1"),
                item("Cite the turn_id of each fact", "t1"),
                item("[t1] User: I adopted a puppy called Biscuit", "t1"),
                item("string", "t1"),
                item("The user adopted a puppy called Biscuit", "t1"),
                item("the user adopted a puppy called biscuit!", "t1"),
                item("adopted a puppy called Biscuit", "t1"),  # contained in the one above
                item("The user is a commercial airline pilot", "t2"),  # nowhere in the chat
                item("   ", "t2"),
            ]
        }
    )
    drafts = LLMExtractor(llm, max_items=10).extract(CHAT)
    assert [d.content for d in drafts] == ["The user adopted a puppy called Biscuit"]


def test_llm_items_citing_unknown_or_assistant_turns_are_dropped() -> None:
    reply = {
        "items": [
            item("Adopted a puppy called Biscuit", "t9"),
            item("Asked what breed Biscuit is", "b1"),
            item("Adopted a puppy called Biscuit", "t1", "t404"),
            {
                "content": "Cooks a lot",
                "kind": "utterance",
                "importance": "low",
                "confidence": "high",
                "turn_ids": ["t2"],
            },
            {"content": "Cooks a lot", "kind": "preference"},  # missing keys
            item("Has gone vegan", "t2"),
        ]
    }
    model = RawTextModel(json.dumps(reply))
    drafts = LLMExtractor(model).extract(CHAT)
    assert [(d.content, d.source_turn_ids) for d in drafts] == [("Has gone vegan", ["t2"])]


def test_llm_retries_with_backoff_then_raises_mem_005() -> None:
    llm = ScriptedLLM(model_id="tiny")
    for _ in range(3):
        llm.enqueue_error(ModelCallError("llama.cpp exploded"))
    sleeps = Sleeps()
    with pytest.raises(ExtractionError) as caught:
        LLMExtractor(llm, sleep=sleeps).extract(CHAT)
    assert caught.value.code == "MEM-005"
    assert "llama.cpp exploded" in caught.value.message
    assert caught.value.context == {"model": "tiny"}
    assert sleeps.calls == [2.0, 4.0]
    assert len(llm.requests) == 3


def test_llm_retry_recovers_and_asks_for_a_shorter_reply() -> None:
    llm = ScriptedLLM()
    llm.enqueue_timeout()
    llm.enqueue({"items": [item("Adopted a puppy called Biscuit", "t1")]})
    sleeps = Sleeps()
    drafts = LLMExtractor(llm, backoff_base=0.5, sleep=sleeps).extract(CHAT)
    assert [d.content for d in drafts] == ["Adopted a puppy called Biscuit"]
    assert sleeps.calls == [0.5]
    first, second = (r.schema for r in llm.requests)
    assert first is not None and second is not None
    assert first["properties"]["items"]["maxItems"] == 6
    assert second["properties"]["items"]["maxItems"] == 3
    assert llm.requests[1].temperature > llm.requests[0].temperature


@pytest.mark.parametrize("bad", ["not json at all", "[1, 2]", '{"items": 3}', '{"facts": []}'])
def test_unparsable_replies_are_retried_then_fail(bad: str) -> None:
    model = RawTextModel(bad, bad)
    sleeps = Sleeps()
    with pytest.raises(ExtractionError, match="unparsable") as caught:
        LLMExtractor(model, retries=1, sleep=sleeps).extract(CHAT)
    assert caught.value.context == {"model": "raw"}
    assert model.calls == 2
    assert sleeps.calls == [2.0]


def test_no_retries_means_one_call_and_no_sleep() -> None:
    llm = ScriptedLLM()
    llm.enqueue_error(ModelCallError("nope"))
    sleeps = Sleeps()
    with pytest.raises(ExtractionError):
        LLMExtractor(llm, retries=0, sleep=sleeps).extract(CHAT)
    assert sleeps.calls == []


def test_more_than_40_turns_are_chunked() -> None:
    turns = [user(f"I enjoy hobby number {n} on weekends.", f"t{n}") for n in range(90)]
    llm = ScriptedLLM()
    for first in (0, 40, 80):
        llm.enqueue({"items": [item(f"Enjoys hobby number {first}", f"t{first}")]})
    drafts = LLMExtractor(llm).extract(turns)
    assert [d.source_turn_ids for d in drafts] == [["t0"], ["t40"], ["t80"]]
    sizes = [len(r.messages[-1].content.splitlines()) for r in llm.requests]
    assert sizes == [40, 40, 10]
    assert llm.requests[1].messages[-1].content.startswith("[t40] User:")


def test_no_call_without_a_user_turn() -> None:
    llm = ScriptedLLM()
    assert LLMExtractor(llm).extract([bot("Hello there!"), user("   ", "t1")]) == []
    assert llm.requests == []


def test_long_and_junk_turns_are_truncated_in_the_prompt() -> None:
    llm = ScriptedLLM([{"items": []}])
    turns = [user("blah " * 20_000, "t1"), user("\x00\xff\x01 I like tea", "t2")]
    assert LLMExtractor(llm).extract(turns) == []
    long_line, junk_line = llm.requests[0].messages[-1].content.splitlines()
    assert len(long_line) < 320
    assert junk_line == "[t2] User: ÿ I like tea"


def test_bad_llm_extractor_settings_are_refused() -> None:
    with pytest.raises(MemoryInputError):
        LLMExtractor(ScriptedLLM(), max_items=0)
    with pytest.raises(MemoryInputError):
        LLMExtractor(ScriptedLLM(), retries=-1)


# ── the modes ────────────────────────────────────────────────────────────────

TALK = [
    user("I love sushi 🍣. My sister is called Maya.", "t1"),
    bot("Nice!", "b1"),
    user("I have been learning Portuguese on the train every morning lately.", "t2"),
]


def test_rules_mode_never_calls_the_model() -> None:
    llm = ScriptedLLM()
    drafts, warnings = extract_drafts(TALK, "rules", rules=RuleExtractor(), llm=LLMExtractor(llm))
    assert [d.kind for d in drafts] == ["preference", "biography", "utterance"]
    assert warnings == []
    assert llm.requests == []


def test_llm_mode_uses_only_the_model() -> None:
    llm = ScriptedLLM([{"items": [item("Learning Portuguese on the train", "t2", kind="goal")]}])
    drafts, warnings = extract_drafts(TALK, "llm", rules=RuleExtractor(), llm=LLMExtractor(llm))
    assert [(d.content, d.kind) for d in drafts] == [("Learning Portuguese on the train", "goal")]
    assert warnings == []


def test_llm_mode_without_a_model_is_an_input_error() -> None:
    with pytest.raises(MemoryInputError, match="no extraction model is configured"):
        extract_drafts(TALK, "llm", rules=RuleExtractor(), llm=None)


def test_llm_mode_lets_the_extraction_error_through() -> None:
    llm = ScriptedLLM()
    llm.enqueue_error(ModelCallError("down"))
    extractor = LLMExtractor(llm, retries=0)
    with pytest.raises(ExtractionError):
        extract_drafts(TALK, "llm", rules=RuleExtractor(), llm=extractor)


def test_both_mode_adds_the_models_new_facts_and_drops_its_repeats() -> None:
    llm = ScriptedLLM()
    llm.enqueue(
        {
            "items": [
                item("I love sushi", "t1"),  # contained in the rule draft
                item("Loves sushi", "t1"),  # a paraphrase made of the rule draft's words
                item("Has a sister named Maya", "t1", kind="biography"),
                item("Is learning Portuguese", "t2", kind="goal"),
            ]
        }
    )
    drafts, warnings = extract_drafts(TALK, "both", rules=RuleExtractor(), llm=LLMExtractor(llm))
    assert [(d.kind, d.content) for d in drafts] == [
        ("preference", "I love sushi 🍣."),
        ("biography", "My sister is called Maya."),
        ("utterance", "I have been learning Portuguese on the train every morning lately."),
        ("biography", "Has a sister named Maya"),  # a paraphrase the words cannot tell
        ("goal", "Is learning Portuguese"),  # an utterance does not shadow a real fact
    ]
    assert warnings == []


def test_both_mode_keeps_the_rule_drafts_when_the_model_fails() -> None:
    llm = ScriptedLLM()
    llm.enqueue_error(ModelCallError("model file missing"))
    sleeps = Sleeps()
    extractor = LLMExtractor(llm, retries=0, sleep=sleeps)
    drafts, warnings = extract_drafts(TALK, "both", rules=RuleExtractor(), llm=extractor)
    assert [d.kind for d in drafts] == ["preference", "biography", "utterance"]
    assert len(warnings) == 1
    assert warnings[0].startswith("llm extraction failed: ")
    assert "model file missing" in warnings[0]


def test_both_mode_without_a_model_warns_and_uses_the_rules() -> None:
    drafts, warnings = extract_drafts(TALK, "both", rules=RuleExtractor(), llm=None)
    assert len(drafts) == 3
    assert warnings == ["no extraction model is configured: used the rules only"]


def test_an_unknown_mode_is_an_input_error() -> None:
    with pytest.raises(MemoryInputError, match="mode"):
        extract_drafts(TALK, "magic", rules=RuleExtractor(), llm=None)  # type: ignore[arg-type]
