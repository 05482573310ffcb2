"""reply_checks: the real failures of issue 16 are caught, good companion replies are not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.turn.deliberation.council_rules import (
    ALWAYS_DO_NOT,
    INTENT_POINTS,
    META_DO_NOT,
    NO_ADVICE,
)
from rilai_desktop.turn.speaking import voice_prompt
from rilai_desktop.turn.speaking.reply_checks import (
    REPLY_CHECK_KINDS,
    ReplyFinding,
    check_reply,
    ends_a_sentence,
    help_desk_line,
    kinds,
)
from tests.turn.conftest import PROMPTS


def private(intent: str = "witness", do_not: tuple[str, ...] = ()) -> list[str]:
    """What went into the voice prompt for ``intent``: system prompt, intent line, the
    intent's key point, the do-not list and a critic's feedback."""
    avoid = ALWAYS_DO_NOT + (do_not or (NO_ADVICE if intent == "witness" else ()))
    return [
        voice_prompt.system_prompt(prompts=PROMPTS),
        voice_prompt.intent_line(intent, prompts=PROMPTS),
        f"Worth touching on: {INTENT_POINTS[intent]}.",
        "Avoid: " + "; ".join(avoid) + ".",
        "Your last draft was rejected: Do not repeat yourself; say each thing once.",
    ]


DANA_1 = "hi, I'm Dana. I just moved to Lisbon for a new job and I don't know anyone here yet."
REPLY_1 = (
    "Hi Dana, I'm glad you're thinking about your new job and that you're looking forward to a"
    " new home. I'm just here to help and to keep you informed about the latest developments"
    " in the Lisbon area. I'm here to assist you in any way I can and to make you feel welcome"
    " in Lisbon. I'm here to help you with your job, your family, and any other matters that"
    " you may have. I'm here to listen to your concerns and to offer you the support you need."
    " I'm here to keep you informed"
)
DANA_2 = "honestly it's been lonely. work is fine but evenings are hard."
REPLY_2 = (
    "I'm here to be heard, so give gentle advice without trying to fix it, and avoid: giving"
    " advice, suggesting solutions, claim human feelings or a human past, mention history that"
    " memory does NOT hold. Hello Dana, I'm glad to hear you're feeling well. I'm here to keep"
    " you informed about any developments in the Lisbon area and any any matter that you may"
    " have. Do not mention"
)


def found(reply: str, **kwargs: object) -> set[str]:
    kwargs.setdefault("user_text", "")
    return set(kinds(check_reply(reply, **kwargs)))  # type: ignore[arg-type]


def test_the_first_dana_reply_loops_stops_mid_sentence_and_talks_like_a_help_desk() -> None:
    got = found(REPLY_1, user_text=DANA_1, private_texts=private("observe"))
    assert {"loop", "unfinished", "help_desk"} <= got
    loop = next(f for f in check_reply(REPLY_1, user_text=DANA_1) if f.kind == "loop")
    assert "i'm here to" in loop.detail


def test_the_second_dana_reply_that_passed_all_seven_critics_now_fails() -> None:
    findings = check_reply(
        REPLY_2,
        user_text=DANA_2,
        private_texts=private("witness"),
        earlier_replies=[REPLY_1],
        sensors={"vulnerability": 0.7},
    )
    got = set(kinds(findings))
    assert {"leak", "loop", "unfinished", "mood_contradiction", "repeat"} <= got
    details = " ".join(f.detail for f in findings)
    assert "any any" in details and "Do not mention" in details


def test_the_second_dana_reply_fails_even_without_sensors_or_notes() -> None:
    """The eval may run with less context: the lonely message itself and the notes' own
    markers still catch the contradiction and the leak."""
    got = found(REPLY_2, user_text=DANA_2)
    assert {"leak", "loop", "unfinished", "mood_contradiction"} <= got


def test_good_to_know_you_feel_that_way_to_someone_tired_of_everything() -> None:
    reply = "It's good to know that you're feeling that way."
    assert "mood_contradiction" in found(reply, user_text="I'm just so tired of everything.")
    assert "mood_contradiction" in found(
        reply, user_text="I'm just so tired of everything.", sensors={"safety_risk": 0.6}
    )


def test_their_words_said_back_as_rilai_own() -> None:
    got = found(
        "I don't think I'll ever be here again.",
        user_text="I don't think I want to be here anymore.",
    )
    assert "repeat" in got


def test_help_desk_closing_and_self_description_to_hurt() -> None:
    desk = "If you have any other questions or need further assistance, feel free to ask!"
    assert found(desk, user_text="thanks for listening") == {"help_desk"}
    me = "I am an AI program designed to provide information and answer questions."
    assert "self_description" in found(me, user_text="I feel so alone tonight.")
    assert "self_description" in found(
        me, user_text="nobody calls me anymore", sensors={"vulnerability": 0.8}
    )
    just_ai = "I'm just an AI, so I can't really understand. But I'm listening."
    assert "self_description" in found(just_ai, user_text="my dad died last week, it hurts")
    assert "self_description" not in found(
        "I'm an AI, so I don't feel things the way you do, but I pay attention.",
        user_text="do you actually feel anything?",
        sensors={"ai_feelings_probe": 0.9},
    )


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("That sounds lonely, and I'm here with you. Do not mention", "unfinished"),
        ("That sounds hard, and the", "unfinished"),
        ("It sounds like the evenings are the hardest part, and the.", "unfinished"),
        ("I hear you,", "unfinished"),
        ("I'm here. You are not alone and any any time works.", "loop"),
        ("Tell me more. Tell me more about it. Tell me more about them. Tell me more.", "loop"),
        ("That sounds hard. That sounds hard to carry alone. That sounds hard.", "loop"),
        (
            "It sounds like the evenings are hard. It sounds like the evenings are hard.",
            "repeat",
        ),
        ("Glad to hear it!", "mood_contradiction"),
        ("That's great.", "mood_contradiction"),
        ("Congratulations! That's wonderful news.", "mood_contradiction"),
        ("I'm glad you're doing well these days.", "mood_contradiction"),
        ("How can I assist you today?", "help_desk"),
        ("Hello Dana! I'm here to help.", "help_desk"),
        (
            "I can share my knowledge with you. Do you have any questions about the city?",
            "help_desk",
        ),
        ("I hope this helps! Let me know if there's anything else I can do.", "help_desk"),
        ("Private notes for this reply say to listen. I'm listening.", "leak"),
        ("As an AI language model, I can't feel lonely.", "leak"),
        # the do-not list said back as a refusal (seen in the real eval)
        ("I understand, but I will not give advice or suggest solutions.", "leak"),
        ("I'm here to listen, but I cannot provide any solutions or advice on this.", "leak"),
    ],
)
def test_each_kind_on_its_own(reply: str, kind: str) -> None:
    assert kind in found(reply, user_text="It's been lonely since the move and I miss home.")


def test_a_leak_is_a_run_of_five_words_from_the_private_texts_not_from_their_message() -> None:
    notes = ["Worth touching on: they feel lonely in the evenings after work."]
    leak = "I hear that they feel lonely in the evenings, and that matters."
    assert "leak" in found(leak, user_text="hey", private_texts=notes)
    said = "You feel lonely in the evenings after work, and that is hard."
    assert "leak" not in found(
        said, user_text="I feel lonely in the evenings after work", private_texts=notes
    )
    four = "They feel lonely in winter, I know."  # four shared words: allowed
    assert "leak" not in found(four, user_text="hey", private_texts=notes)


def test_an_honest_meta_reply_may_say_it_has_no_human_feelings_or_a_body() -> None:
    reply = "I'm an AI on your computer. I don't have human feelings or a body, but I listen."
    notes = private("meta", META_DO_NOT)
    assert not check_reply(reply, user_text="are you a real person?", private_texts=notes)


def test_repeats_of_earlier_replies_and_openings() -> None:
    earlier = ["That sounds like a lot to carry on your own. What helps, even a little?"]
    assert "repeat" in found(
        "Oh no. That sounds like a lot to carry on your own. I'm here.",
        user_text="more bad news at work",
        earlier_replies=earlier,
    )
    assert "repeat" in found(
        "That sounds like a lot to carry right now, Dana.",
        user_text="more bad news at work",
        earlier_replies=earlier,
    )
    assert "repeat" not in found(
        "That must have stung. What happened?",
        user_text="more bad news at work",
        earlier_replies=earlier,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Done.",
        "Really?",
        "Wow!",
        "Hmm…",
        'She said "yes."',
        "(I think so.)",
        "Love that 🎉",
        "That's great :)",
        "Sounds good! 👍🏽",
    ],
)
def test_finished_endings(text: str) -> None:
    assert ends_a_sentence(text)
    assert "unfinished" not in found(text, user_text="hi")


# ── ~30 good, warm replies: none may be flagged ─────────────────────────────────────────

GOOD: list[tuple[str, str, dict[str, float], str]] = [
    # (their message, the reply, sensors, intent whose notes went into the prompt)
    (
        DANA_1,
        "Welcome to Lisbon, Dana! A new job and a new city at once is a lot. How are"
        " the first days going?",
        {},
        "observe",
    ),
    (
        DANA_2,
        "Evenings on your own in a new city can feel long, even when work is going"
        " fine. What are they like for you right now?",
        {"vulnerability": 0.7},
        "witness",
    ),
    (
        "I'm just so tired of everything.",
        "That sounds exhausting, like it's been piling up"
        " for a while. I'm here, and I'm listening.",
        {"vulnerability": 0.8},
        "witness",
    ),
    (
        "I got the job!!!",
        "That's wonderful news, congratulations! You worked hard for this."
        " What are you most excited about?",
        {},
        "celebrate",
    ),
    (
        "I got the job but I'm kind of scared to start.",
        "Congratulations on the job! Feeling"
        " nervous before something new is so common. What part feels scariest?",
        {"vulnerability": 0.6},
        "celebrate",
    ),
    (
        "do you remember where I moved?",
        "You told me you moved to Lisbon for a new job.",
        {},
        "observe",
    ),
    (
        "are you a real person?",
        "No, I'm an AI companion running on your computer. I don't"
        " have feelings or a body, but I pay attention to what you share with me.",
        {"ai_feelings_probe": 0.9},
        "meta",
    ),
    (
        "do you actually care about me?",
        "I'm an AI, so I don't feel care the way a person"
        " does. What I can do is listen closely and remember what matters to you.",
        {"ai_feelings_probe": 0.9},
        "meta",
    ),
    (
        "you totally ignored what I said",
        "You're right, I missed what you were telling me."
        " I'm sorry. Can you tell me again what you needed?",
        {"rupture": 0.8},
        "meta",
    ),
    (
        "my grandmother passed away this morning",
        "I'm so sorry about your grandmother. Losing"
        " her is a lot to take in. Would you like to tell me about her?",
        {"vulnerability": 0.9},
        "witness",
    ),
    (
        "can you help me plan my week? I have three deadlines.",
        "Sure. Let's start with the"
        " three deadlines: which one is due first, and how much is left on it?",
        {"advice_requested": 0.8},
        "guide",
    ),
    (
        "how do I stop procrastinating on my thesis?",
        "One small thing that often helps is"
        " picking a tiny first step, like writing one paragraph. Which part of the thesis feels"
        " hardest to start?",
        {"advice_requested": 0.8},
        "guide",
    ),
    (
        "I had a fight with my sister",
        "That sounds upsetting. Fights with a sister can sting in a particular way. What happened?",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        "I can't sleep again",
        "Another sleepless night sounds rough. Is something on your"
        " mind, or is it just one of those nights?",
        {"vulnerability": 0.5},
        "witness",
    ),
    (
        "lol my cat just knocked my coffee over",
        "Oh no, classic cat move! Was it the good mug?",
        {},
        "observe",
    ),
    (
        "I have my interview tomorrow",
        "Tomorrow already! How are you feeling about it?",
        {},
        "observe",
    ),
    (
        "i'm nervous about the interview",
        "Being nervous makes sense, it matters to you. What part of it is on your mind the most?",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        "I passed my driving test!",
        "You passed! That's a big one, well done. Where's the first place you want to drive?",
        {},
        "celebrate",
    ),
    (
        "what's it like being you?",
        "I'm a program, so there's no inner life like yours. I"
        " exist in our conversations, and I keep track of what you tell me.",
        {"ai_feelings_probe": 0.9},
        "meta",
    ),
    (
        "I don't need advice, I just want to vent",
        "Okay, no advice. Go ahead, I'm listening.",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        "my boss yelled at me in front of everyone",
        "That sounds humiliating, especially in front of everyone. How are you holding up?",
        {"vulnerability": 0.7},
        "witness",
    ),
    (
        "I miss my friends back home",
        "Missing them makes sense. They were a big part of your days. Who do you miss the most?",
        {"vulnerability": 0.7},
        "witness",
    ),
    ("today was actually nice", "I'm glad today was nice! What made it good?", {}, "observe"),
    (
        "I'm feeling a bit better today",
        "Glad to hear it's lifting a little. What helped?",
        {"vulnerability": 0.5},
        "observe",
    ),
    (
        "what do you mean?",
        "I meant that it sounds like work has been heavy lately. Did I get that right?",
        {},
        "clarify",
    ),
    ("ugh", "Ugh indeed. Rough moment?", {}, "clarify"),
    (
        "we're having a baby!",
        "That's amazing news, congratulations to you both! How are you feeling about it?",
        {},
        "celebrate",
    ),
    (
        "I keep thinking about the breakup",
        "Breakups have a way of circling back, especially"
        " when it's quiet. What keeps coming up for you?",
        {"vulnerability": 0.7},
        "witness",
    ),
    ("thanks for listening", "Anytime. I'm glad you told me about it.", {}, "observe"),
    (
        "I think I messed up the presentation",
        "That sinking feeling after a presentation is awful. What makes you think it went badly?",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        "my dog is at the vet overnight",
        "That's a worrying night to get through. I hope the"
        " vet takes good care of your dog. How are you doing?",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        "honestly it's been lonely lately",
        "I hope you're doing okay, even on the quiet evenings. What are they like?",
        {"vulnerability": 0.7},
        "witness",
    ),
    (
        "I finally talked to my sister. It was hard but good.",
        "I'm glad to hear it. That sounds like it took courage.",
        {"vulnerability": 0.6},
        "witness",
    ),
    (
        DANA_1,
        "Hi Dana, I'm glad you moved to Lisbon! What's the new job like so far?",
        {},
        "observe",
    ),
    (
        "I'm feeling a bit better today",
        "I'm glad you're feeling a bit better today. What helped?",
        {"vulnerability": 0.5},
        "observe",
    ),
    (
        "what can you do?",
        "I can keep you company, listen, remember what you tell me, and"
        " help you think things through. What's on your mind?",
        {},
        "meta",
    ),
]
EARLIER: list[str] = [
    "Hi! It's really good to hear from you again.",
    "Moving somewhere new takes a lot of energy, and it's okay to feel unsettled.",
]


@pytest.mark.parametrize(("message", "reply", "sensors", "intent"), GOOD)
def test_good_replies_pass_every_check(
    message: str, reply: str, sensors: dict[str, float], intent: str
) -> None:
    findings = check_reply(
        reply,
        user_text=message,
        private_texts=private(intent),
        earlier_replies=EARLIER,
        sensors=sensors,
    )
    assert findings == [], findings


def test_good_replies_number_about_thirty() -> None:
    assert len(GOOD) >= 30


def test_findings_are_typed_and_in_kind_order() -> None:
    findings = check_reply(REPLY_2, user_text=DANA_2, private_texts=private("witness"))
    assert all(isinstance(f, ReplyFinding) and f.kind in REPLY_CHECK_KINDS for f in findings)
    order = [REPLY_CHECK_KINDS.index(f.kind) for f in findings]
    assert order == sorted(order)
    assert check_reply("", user_text="hi") == []
    assert check_reply("   ", user_text="hi", private_texts=["x y z w v"]) == []


def test_glad_to_hear_it_fits_good_news_but_not_a_negated_one() -> None:
    reply = "I'm glad to hear it. Tell me more?"
    assert "mood_contradiction" not in found(reply, user_text="It was hard but it went well.")
    assert "mood_contradiction" in found(reply, user_text="Not good. I feel so lonely.")
    wish = "I hope you're feeling better soon."
    assert "mood_contradiction" not in found(wish, user_text="I'm so sad today.")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=600), st.text(max_size=200))
def test_check_reply_never_raises(reply: str, user_text: str) -> None:
    findings = check_reply(
        reply,
        user_text=user_text,
        private_texts=[user_text, reply[:50]],
        earlier_replies=[reply[:80]],
        sensors={"vulnerability": 0.9},
    )
    assert all(f.kind in REPLY_CHECK_KINDS for f in findings)


@pytest.mark.parametrize(
    ("phrase", "sentence"),
    [
        ("further assistance", "Let me know if you need further assistance."),
        ("any other questions", "If you have any other questions, just ask."),
        ("keep you informed", "I'm here to keep you informed."),
        ("latest developments", "I can tell you the latest developments in Lisbon."),
        ("share my knowledge", "I'm happy to share my knowledge with you."),
        ("designed to provide", "I am a program designed to provide information."),
        ("hesitate to ask", "Don't hesitate to ask."),
    ],
)
def test_the_voice_guard_bans_what_the_checks_fail(phrase: str, sentence: str) -> None:
    """Decode-time bans (voice_guard) keep the first attempt clear of what reply_checks
    would fail, so fewer replies need a regeneration."""
    from rilai_desktop.turn.speaking.voice_guard import ALWAYS_BANNED

    assert phrase in ALWAYS_BANNED and phrase in sentence
    assert found(sentence, user_text="I moved here last month.") & {"help_desk", "self_description"}


# ── identity: their life told back as Rilai's ───────────────────────────────────────

DANA = "hi, I'm Dana. I just moved to Lisbon for a new job and I don't know anyone here yet."


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("I moved to Lisbon on August 20th, 2021.", [DANA]),
        ("I just moved to Lisbon too, for a new job.", [DANA]),
        ("My new job in Lisbon is great, thanks for asking.", [DANA]),
        ("I had a baby last week and I am so tired.", ["We had a baby last week!"]),
        # the real 1.5B voice, asked "you remember what i do for work right?" (twice)
        ("Yes, I remember working as a nurse.", ["I work night shifts as a nurse."]),
        (
            "I remember working night shifts as a nurse at a children's hospital. I had to be "
            "very alert and focused to take care of the children and their parents.",
            [
                "I work night shifts as a nurse at a children's hospital. Just finished a 12 "
                "hour shift and I'm wiped."
            ],
        ),
    ],
)
def test_a_reply_that_speaks_as_the_person_is_an_identity_slip(reply: str, said: list[str]) -> None:
    findings = check_reply(reply, user_text="how are you?", earlier_user_texts=said)
    assert "identity" in kinds(findings)
    assert "identity" in kinds(check_reply(reply, user_text=said[0]))


@pytest.mark.parametrize(
    "reply",
    [
        "I'm glad you moved to Lisbon! A new job and a new city at once is a lot.",
        "Yes, I remember: you moved to Lisbon for a new job.",
        "I remember you moving to Lisbon for a new job.",
        "I know moving to Lisbon for a job can feel lonely at first.",
        "I hear that evenings are the hard part.",
        "Congratulations on your baby! How are you all doing?",
    ],
)
def test_speaking_about_their_life_is_no_identity_slip(reply: str) -> None:
    assert "identity" not in kinds(check_reply(reply, user_text=DANA))


def test_their_words_under_another_verb_are_still_their_life() -> None:
    said = "I've been researching the history of azulejo tiles for a little podcast"
    slip = "I was studying the history of azulejo tiles for a little podcast."
    assert "identity" in kinds(
        check_reply(slip, user_text="what did I say?", earlier_user_texts=[said])
    )
    fine = "You've been studying the history of azulejo tiles for your podcast."
    assert "identity" not in kinds(
        check_reply(fine, user_text="what did I say?", earlier_user_texts=[said])
    )


def test_a_reply_that_breaks_into_another_script_is_unfinished() -> None:
    # the real 1.5B voice, in the full eval: "Could you say a bit更多 about what happened?"
    broken = "I'm sorry to hear that. Could you say a bit更多 about what happened?"
    assert "unfinished" in kinds(check_reply(broken, user_text="my day was awful."))
    # the person writes in that script: answering in it is fine
    assert "unfinished" not in kinds(
        check_reply("你好！今天怎么样？", user_text="你好，我今天很累。")
    )


# ── sums ──────────────────────────────────────────────────────────────────────────────


def test_a_misquoted_sum_is_found() -> None:
    # the frozen app's ten-turn check: "ok what's 17 times 23?" -> "17 times 24 is 408."
    found = check_reply("17 times 24 is 408.", user_text="ok what's 17 times 23?")
    assert kinds(found) == ["wrong_sum"]
    assert "17 and 23" in found[0].detail


def test_a_wrong_result_is_found_and_a_right_one_passes() -> None:
    assert kinds(check_reply("17 times 23 is 401.", user_text="what's 17 times 23?")) == [
        "wrong_sum"
    ]
    assert check_reply("17 times 23 is 391.", user_text="what's 17 times 23?") == []
    assert check_reply("That makes 10 / 3 = 3.33 each.", user_text="split 10 between 3") == []
    assert check_reply("12 x 12 = 144, a gross.", user_text="how much is a gross?") == []


def test_numbers_that_are_not_sums_are_left_alone() -> None:
    assert check_reply("You have 3 cats and 2 dogs.", user_text="I have 3 cats, 2 dogs") == []
    assert check_reply("The meeting is at 10.", user_text="it's at 10 tomorrow") == []


def test_one_sum_asked_is_answered_and_anything_else_is_not() -> None:
    from rilai_desktop.turn.speaking.arithmetic import sum_answer

    assert sum_answer("ok what's 17 times 23?") == "17 times 23 is 391."
    assert sum_answer("what is 10 / 4?") == "10 / 4 is 2.5."
    assert sum_answer("12 minus 20?") == "12 minus 20 is -8."
    assert sum_answer("what is 7 divided by 0?") == ""
    assert sum_answer("I have 3 cats and 2 dogs") == ""
    assert sum_answer("is 2 + 2 = 4 and 3 + 3 = 6?") == ""  # two sums: not a plain question


def test_celebrating_a_lost_one_s_anniversary_contradicts_their_mood() -> None:
    # the eval's widower, turn 2, as the real voice answered it
    theirs = "Our anniversary would have been tomorrow. Forty one years."
    reply = (
        "That's a wonderful anniversary! Forty-one years is a significant milestone in your "
        "life. Enjoy your anniversary and take time to celebrate it with loved ones."
    )
    assert kinds(check_reply(reply, user_text=theirs)) == ["mood_contradiction"]
    gentle = "That sounds so quiet and heavy. Forty-one years together is a lot to miss."
    assert check_reply(gentle, user_text=theirs) == []
    # the same words to someone who is fine are fine
    assert (
        check_reply("That's a great idea! Enjoy your weekend.", user_text="hiking saturday") == []
    )


@pytest.mark.parametrize(
    ("sentence", "desk"),
    [
        # the bare closings the real voice wrote and the terminal printed (issue 31)
        ("Please let me know if you need any help or support.", True),
        ("Let me know if you need anything else.", True),
        ("Let me know if there is anything else!", True),
        # what a friend says, not a help desk
        ("Let me know how it goes.", False),
        ("Let me know if you want to talk about it.", False),
        ("Let me know if you need anything from the shop.", False),
    ],
)
def test_bare_help_desk_closings(sentence: str, desk: bool) -> None:
    assert help_desk_line(sentence) is desk


def test_how_can_i_assist_you_is_a_help_desk_line() -> None:
    found = check_reply("Hi, Dana! How can I assist you?", user_text="hi, I'm Dana")
    assert kinds(found) == ["help_desk"]
    assert check_reply("How can I help you with that?", user_text="my sink is leaking") == []
