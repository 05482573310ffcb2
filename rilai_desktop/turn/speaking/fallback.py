"""The last resort of a turn: a short, safe reply built from the decision and the sensors.

When every generated attempt failed a blocking critic, the reply a person sees is built
here (``voice.fallback_reply`` reads the variants from ``prompts/voice/fallback.md``),
never the failed text. It is chosen from the council's intent and what the sensors read:

- witness: a warm acknowledgement that names the feeling their words show ("That sounds
  lonely."), or "really hard" when none is named but the sensors read distress; when
  nothing hurts (a greeting the council chose to witness), the plain observe variants;
- celebrate, when they are hurting and their message holds no good news: witness instead
  (congratulating a person who is hurting is a mood contradiction);
- meta after a rupture (angry at Rilai, not asking what it is): a repair;
- meta, clarify, guide, observe: their own variants; protect never comes here (the
  deterministic safety text does);
- a memory question ("what did I say I was researching?") with something recalled: the
  best recalled thing they said, told back ("You told me you've been researching…").

The variants rotate with the turn id, and a variant that would fail ``reply_checks`` here
(a sentence or opening Rilai already used in this conversation, a contradiction) is
skipped; when all would, a :data:`LAST_RESORT` of sentences under four words is used, which
the repeat check cannot match. Pure functions: no model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from rilai_desktop.turn.deliberation.council_cues import memory_question
from rilai_desktop.turn.deliberation.council_rules import SENSOR_THRESHOLD, celebration_cue
from rilai_desktop.turn.speaking import critic_patterns as P
from rilai_desktop.turn.speaking.pronouns import second_person
from rilai_desktop.turn.speaking.reply_checks import check_reply, hurting
from rilai_desktop.turn.state import TurnState

DEFAULT_FEELING: Final[str] = "really hard"
_PLAIN_OPENERS: Final = frozenset({"The", "A", "An", "It", "It's", "We", "Our", "This", "That"})
FEELING_SLOT: Final[str] = "{feeling}"
# (cue in their words or the sensors' evidence, how the fallback names it: "That sounds …")
FEELINGS: Final[tuple[tuple[re.Pattern[str], str], ...]] = tuple(
    (re.compile(rf"\b(?:{cue})\b", re.IGNORECASE), name)
    for cue, name in (
        (r"lonely|alone|isolated|no\s+friends|don't\s+know\s+anyone", "lonely"),
        (r"tired|exhausted|drained|worn\s+out|burn(?:ed|t)\s+out", "exhausting"),
        (r"overwhelm\w*|too\s+much", "overwhelming"),
        (r"scared|afraid|frightened|terrified|panic\w*", "frightening"),
        (r"anxious|nervous|worried|worry\w*|dread\w*", "worrying"),
        (r"stress\w*|pressure", "stressful"),
        (r"angry|furious|frustrat\w*|annoyed|pissed", "frustrating"),
        (r"grie\w*|died|passed\s+away|funeral|lost\s+my", "heavy"),
        (r"hurt\w*|painful|betrayed", "painful"),
        (r"sad|depress\w*|miserable|heartbroken|crying|cried|hopeless|empty", "really sad"),
    )
)
DEFAULT_VARIANTS: Final[Mapping[str, tuple[str, ...]]] = {
    "witness": (
        "That sounds {feeling}. I'm here and listening. Do you want to tell me more about"
        " what's going on?",
        "Thank you for telling me this. It sounds {feeling}, and there's no rush to explain"
        " it all. I'm listening.",
        "I hear you. That sounds {feeling}. What has it been like for you?",
    ),
    "guide": (
        "Let's think this through together. What have you already tried, and which part"
        " feels hardest right now?",
        "We can take this one piece at a time. Which part matters most to you right now?",
        "Okay, let's look at it together. What would a good outcome look like for you?",
    ),
    "clarify": (
        "Could you say a little more about what you mean, so I understand you right?",
        "I want to be sure I follow. What do you mean by that?",
        "Can you tell me a bit more? I'm not sure I've understood yet.",
    ),
    "celebrate": (
        "That's great news, well done! What part of it means the most to you?",
        "Well done, that's worth celebrating! How does it feel now that it's real?",
        "That's wonderful! What are you looking forward to most?",
    ),
    "observe": (
        "Thanks for telling me. I'm listening, so say more whenever you like.",
        "Got it. What's on your mind today?",
        "I'm here whenever you want to talk. What's been going on?",
    ),
    "meta": (
        "I'm an AI, a program running on your computer. I don't have feelings or a body the"
        " way you do, but I do pay attention to what you tell me and I remember it, so I can"
        " be useful to you.",
        "Honestly, I'm an AI companion, a program on your computer and not a person. I can"
        " still listen closely and keep track of what matters to you.",
        "I'm not a human: I'm an AI that runs on your computer. What I can do is listen,"
        " remember what you share, and think things through with you.",
    ),
    "repair": (
        "You're right, I missed what you needed there, and I'm sorry. What would help most"
        " right now?",
        "I'm sorry, I got that wrong. Can you tell me again what you meant?",
        "Fair point, that wasn't what you needed. I'm listening now: what did you want to say?",
    ),
}
# Sentences of fewer than four words: the repeat check never matches them.
LAST_RESORT: Final[Mapping[str, str]] = {
    "witness": "I hear you. I'm listening.",
    "guide": "Okay. Where to start?",
    "clarify": "Sorry, meaning what?",
    "celebrate": "Well done! How's it feel?",
    "observe": "I'm listening. Go on.",
    "meta": "I'm an AI. Not a person.",
    "repair": "My mistake, sorry. Say again?",
}


def kind_of(state: TurnState, intent: str) -> str:
    """Which variants fit: the intent, or witness / repair where the sensors say so."""
    readings = {name: s.probability for name, s in state.sensors.items()}
    if intent == "meta":
        probe = readings.get("ai_feelings_probe", 0.0) >= SENSOR_THRESHOLD
        rupture = readings.get("rupture", 0.0) >= SENSOR_THRESHOLD
        return "repair" if rupture and not probe else "meta"
    if intent == "celebrate" and hurting(state.user_text, readings):
        return "celebrate" if celebration_cue(state.user_text) else "witness"
    if (
        intent == "witness"
        and not hurting(state.user_text, readings)
        and named_feeling(state) == DEFAULT_FEELING
    ):
        # nothing hurts in their words or the sensors ("Hello! I'm testing the app"):
        # "That sounds really hard" would misread them; listen without naming a feeling
        return "observe"
    return intent if intent in DEFAULT_VARIANTS else "observe"


def named_feeling(state: TurnState) -> str:
    """How to name what they feel ("lonely", "exhausting"), from the vulnerability sensor's
    evidence and their words (a negated cue, "I'm not tired", does not count), or
    :data:`DEFAULT_FEELING`."""
    sources = [*state.sensors["vulnerability"].evidence] if "vulnerability" in state.sensors else []
    sources.append(state.user_text if isinstance(state.user_text, str) else "")
    for source in sources:
        text = source[:5_000]
        for cue, name in FEELINGS:
            if any(not P.negated(text, m.start()) for m in cue.finditer(text)):
                return name
    return DEFAULT_FEELING


def choose(
    state: TurnState,
    kind: str,
    variants: Sequence[str],
    *,
    follow_up: str = "",
    private: Sequence[str] = (),
) -> str:
    """The first variant, from the turn's rotation, that passes ``reply_checks`` in this
    conversation; the kind's :data:`LAST_RESORT` when none does."""
    feeling = named_feeling(state) if kind == "witness" else DEFAULT_FEELING
    earlier = [
        str(m.get("content", ""))
        for m in state.history
        if isinstance(m, Mapping) and m.get("role") == "assistant"
    ]
    readings = {name: s.probability for name, s in state.sensors.items()}
    pool = [v for v in variants if v.strip()] or list(DEFAULT_VARIANTS[kind])
    start = abs(state.turn_id) % len(pool)
    for i in range(len(pool)):
        text = _fill(pool[(start + i) % len(pool)], feeling, follow_up)
        found = check_reply(
            text,
            user_text=state.user_text,
            private_texts=private,
            earlier_replies=earlier,
            sensors=readings,
        )
        if not found:
            return text
    return _fill(LAST_RESORT.get(kind, LAST_RESORT["observe"]), feeling, "")


def memory_answer(state: TurnState) -> str:
    """For "what did I say…?" / "do you remember…?": the best recalled thing they said,
    told back in the second person ("You told me you've been researching the history of
    azulejo tiles for a little podcast you want to start."); "" when the message asks
    nothing of memory, memory recalled none of their words, or the answer fails a check."""
    if not memory_question(state.user_text) or state.recall is None:
        return ""
    for item in state.recall.items[:1]:
        said = item.get("text") if isinstance(item, Mapping) else None
        if not isinstance(said, str) or not said.strip():
            continue
        first = re.split(r"(?<=[.!?])\s+", " ".join(said.split()))[0].rstrip(".!?")
        if len(first.split()) < 3 or len(first) > 240:
            continue
        told = second_person(first)
        if told.split()[0] in _PLAIN_OPENERS:  # "The report went well" → "the report …"
            told = told[:1].lower() + told[1:]
        answer = f"You told me {told}."
        readings = {name: s.probability for name, s in state.sensors.items()}
        if not check_reply(answer, user_text=state.user_text, sensors=readings):
            return answer
    return ""


def _fill(text: str, feeling: str, follow_up: str) -> str:
    text = " ".join(text.replace(FEELING_SLOT, feeling).split())
    return f"{text} {follow_up}" if follow_up and "?" not in text else text
