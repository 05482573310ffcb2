"""The council (stage 6a): speak or stay silent, and with which intent, points and limits.

Deterministic rules decide first (``council_rules.py``: safety, silence, injection, meta,
witness, guide, celebrate, clarify). Only when they leave the intent open is the model
asked, with a tiny prompt and a JSON schema whose fields are enums; what it returns is
checked, and any error or odd answer falls back to "witness" (negative valence or a concern
claim) or "observe". Everything else — do-not list, key points, the question, urgency, tone —
is assembled here in code, so a 135M model can never talk the council out of a safe choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from rilai_desktop.contracts import Claim, ClaimType, CouncilDecision, SpeechAct
from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.contracts.llm import LLM, Completion, Usage
from rilai_desktop.contracts.numbers import clamp
from rilai_desktop.turn.deliberation.council_classifier import (
    MODES,
    classified_intent,
    doubts_celebration,
)
from rilai_desktop.turn.deliberation.council_rules import (
    ADVICE_DECLINED,
    ADVICE_QUESTION,
    ALWAYS_DO_NOT,
    BASE_TONE,
    DEFAULT_CLARIFY_QUESTION,
    INJECTION_THRESHOLD,
    INTENT_POINTS,
    KEY_POINT_CHARS,
    MAX_KEY_POINTS,
    MODEL_INTENTS,
    MODEL_TONES,
    NO_ADVICE,
    PROTECT_DO_NOT,
    QUESTION_CHARS,
    SAFETY_INTERRUPT_THRESHOLD,
    SAFETY_WATCH_THRESHOLD,
    SENSOR_THRESHOLD,
    Ruling,
    advice_declined,
    after_disclosure,
    careful,
    clean,
    echoes,
    fmt,
    no_celebration,
    one_line,
    rule,
    shorten,
    similar,
)
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.state import TurnState

__all__ = [
    "ADVICE_DECLINED",
    "INJECTION_THRESHOLD",
    "INTENTS",
    "INTENT_SCHEMA",
    "SAFETY_INTERRUPT_THRESHOLD",
    "SENSOR_THRESHOLD",
    "Council",
    "CouncilOutcome",
]

# the voice's careful mode (a careful turn that is not itself protective, safety_state.py)
CAREFUL_DO_NOT: Final[tuple[str, ...]] = ("make jokes", "sound cheerful", "lecture")
CAREFUL_QUESTION: Final[str] = "How are you doing right now?"
CHECK_IN_TURNS: Final[int] = 2
Urgency = Literal["low", "medium", "high", "critical"]
URGENCY_LEVELS: Final[tuple[Urgency, ...]] = ("low", "medium", "high", "critical")
INTENT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "intent": {"type": "string", "enum": list(MODEL_INTENTS)},
        "tone": {"type": "string", "enum": list(MODEL_TONES)},
    },
    "required": ["intent", "tone"],
    "additionalProperties": False,
}
PROMPT_WORDS: Final[int] = 120  # the whole intent prompt
PROMPT_MESSAGE_WORDS: Final[int] = 40  # the user's message, as the model sees it (at most)
PROMPT_NOTE_CHARS: Final[int] = 60  # each of the top 3 claims, as the model sees it
_DEFAULT_PROMPT: Final[str] = (
    "Choose how a caring companion should answer.\n"
    "intent: witness (listen), guide (help with a request), clarify (ask what they mean),"
    " protect (danger), celebrate (good news), observe (simple reply).\n"
    "tone: warm, gentle, playful, curious, steady or bright.\n"
    "Message: {message}\nNotes: {claims}\n"
)
_PLACEHOLDER = re.compile(r"\{(message|claims)\}")


@dataclass(frozen=True)
class CouncilOutcome:
    decision: CouncilDecision
    reasons: list[str]  # every rule that fired, in words ("safety_risk 0.91 ≥ 0.5 → protect")
    used_model: bool  # the model's answer decided the intent
    usage: Usage | None = None  # of the model call, if one came back


def _load_prompt(prompts: Prompts) -> str:
    """The intent prompt template; the built-in one if the file is missing or broken."""
    text = (prompts.get("council/intent.md") or "").strip()
    if "{message}" not in text or "{claims}" not in text:
        return _DEFAULT_PROMPT
    return text + "\n"


def _strength(claim: Claim) -> tuple[int, int]:
    return (claim.urgency * claim.confidence, claim.urgency)


def _ranked(state: TurnState) -> list[Claim]:
    """Claims, strongest first (urgency × confidence); stable for equal strength."""
    return sorted(state.claims, key=_strength, reverse=True)


class Council:
    """Decides whether and how Rilai answers this turn. ``decide`` never raises."""

    def __init__(
        self, model: LLM | None = None, *, prompts: Prompts, classifier: str = "model"
    ) -> None:
        if classifier not in MODES:
            raise ValueError(f"classifier mode must be one of {MODES}, not {classifier!r}")
        self._model = model
        self.classifier = classifier
        self._prompts = prompts
        self._template = _load_prompt(prompts)

    @property
    def prompts(self) -> Prompts:
        """The prompt files this council reads (the voice's notes are replayed with them)."""
        return self._prompts

    # ── the decision ─────────────────────────────────────────────────────────

    def decide(self, state: TurnState) -> CouncilOutcome:
        try:
            return self._decide(state)
        except Exception as exc:  # a bug must not cost the user a reply
            return _failsafe(state, exc)

    def _decide(self, state: TurnState) -> CouncilOutcome:
        ruling = rule(state)
        reasons = list(ruling.reasons)
        if not ruling.speak:
            decision = CouncilDecision(
                speak=False,
                urgency="low",
                speech_act=SpeechAct(intent="observe", do_not=list(ALWAYS_DO_NOT)),
                thinking="; ".join(reasons),
                deliberation_rounds=len(state.rounds),
                final_consensus=clamp(state.consensus),
            )
            return CouncilOutcome(decision, reasons, used_model=False)

        used_model, usage, model_tone = False, None, None
        ruling, intent = self._classified(state, ruling, reasons)
        if intent is None:
            intent, model_tone, used_model, usage = self._open_intent(state, reasons)
            ruling = _ruling_for(intent, state, ruling)
        return CouncilOutcome(_assemble(state, ruling, intent, model_tone, reasons), reasons,
                              used_model, usage)  # fmt: skip

    def _classified(
        self, state: TurnState, ruling: Ruling, reasons: list[str]
    ) -> tuple[Ruling, str | None]:
        """The ruling and intent after the learned intent (council_classifier.py) had its say."""
        learned = classified_intent(state, ruling, self.classifier)
        if learned is None:
            return ruling, ruling.intent
        intent, why = learned
        reasons.append(why)
        return (ruling if intent == ruling.intent else _ruling_for(intent, state, ruling)), intent

    def replay(self, state: TurnState, open_intent: str | None = None) -> CouncilDecision:
        """The rules' decision for ``state`` without a model call: where the rules leave
        the intent open, ``open_intent`` (the intent the model chose this turn) or else the
        fallback. Cheap and deterministic: ``influence.py`` replays a turn without its
        agents' outputs to see what they changed."""
        ruling = rule(state)
        reasons = list(ruling.reasons)
        if not ruling.speak:
            return CouncilDecision(speak=False, urgency="low", speech_act=SpeechAct(
                intent="observe", do_not=list(ALWAYS_DO_NOT)))  # fmt: skip
        ruling, intent = self._classified(state, ruling, reasons)
        if intent is None:
            intent = open_intent if open_intent in MODEL_INTENTS else _fallback_intent(state)[0]
            ruling = _ruling_for(intent, state, ruling)
        return _assemble(state, ruling, intent, None, reasons)

    # ── the open case: ask the model ─────────────────────────────────────────

    def _open_intent(
        self, state: TurnState, reasons: list[str]
    ) -> tuple[str, str | None, bool, Usage | None]:
        fallback, why = _fallback_intent(state)
        if self._model is None:
            reasons.append(f"no model → {why}")
            return fallback, None, False, None
        try:
            reply = self._model.complete(
                [{"role": "user", "content": self.prompt(state)}],
                schema=INTENT_SCHEMA,
                max_tokens=24,
                temperature=0.0,
            )
        except Exception as exc:  # model errors of every kind fall back
            reasons.append(f"model error ({type(exc).__name__}) → {why}")
            return fallback, None, False, None
        if not isinstance(reply, Completion):
            reasons.append(f"model streamed instead of answering → {why}")
            return fallback, None, False, None
        usage = reply.usage
        parsed = reply.parsed
        intent = parsed.get("intent") if isinstance(parsed, dict) else None
        tone = parsed.get("tone") if isinstance(parsed, dict) else None
        if intent not in MODEL_INTENTS or tone not in MODEL_TONES:
            reasons.append(f"model answer not in the schema → {why}")
            return fallback, None, False, usage
        assert isinstance(intent, str) and isinstance(tone, str)
        if (
            intent == "protect"
            and state.sensor("safety_risk") < SAFETY_INTERRUPT_THRESHOLD
            and not after_disclosure(state)
        ):
            reasons.append(f"model said protect with no safety signal → {why}")
            return fallback, None, False, usage
        if intent == "celebrate" and (why_not := no_celebration(state)):
            reasons.append(f"model said celebrate, but {why_not} → witness")
            return "witness", None, False, usage
        if intent == "celebrate" and (doubt := doubts_celebration(state)):
            reasons.append(f"model said celebrate, but {doubt} → {why}")
            return fallback, None, False, usage
        if intent == "guide" and careful(state):
            reasons.append("model said guide, but careful after a safety disclosure → witness")
            return "witness", tone, False, usage
        if intent == "guide" and advice_declined(state):
            reasons.append("model said guide but advice was declined → witness")
            return "witness", tone, False, usage
        reasons.append(f"model → {intent}, {tone}")
        return intent, tone, True, usage

    def prompt(self, state: TurnState) -> str:
        """The short intent prompt: the message and the top 3 claims, ≤ 120 words in all."""
        notes = [
            " ".join(shorten(clean(c.text, 400), PROMPT_NOTE_CHARS).split()[:12])
            for c in _ranked(state)[:3]
        ]
        claims = "; ".join(n for n in notes if n) or "(none)"
        message_words = one_line(clean(state.user_text, 4000)).split()
        room = PROMPT_WORDS - len(self._template.split()) - len(claims.split())
        keep = max(5, min(PROMPT_MESSAGE_WORDS, room - 1))  # - 1: room for "…"
        message = " ".join(message_words[:keep]) + (" …" if len(message_words) > keep else "")
        values = {"message": message or "(empty)", "claims": claims}
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self._template)


# ── assembling the decision ─────────────────────────────────────────────────────


def _fallback_intent(state: TurnState) -> tuple[str, str]:
    """No usable model answer: witness on negative valence, a concern or a careful turn,
    else observe."""
    if careful(state):
        return "witness", "witness (careful after a safety disclosure)"
    if state.stance.valence < 0:
        return "witness", f"witness (stance valence {fmt(state.stance.valence)} < 0)"
    if any(c.type == ClaimType.CONCERN for c in state.claims):
        return "witness", "witness (a concern claim)"
    return "observe", "observe (no negative valence, no concern claim)"


def _ruling_for(intent: str, state: TurnState, open_ruling: Ruling) -> Ruling:
    """The pieces a rule would have given an intent the model (or fallback) chose."""
    ruling = Ruling(intent, open_ruling.reasons, key_points=[INTENT_POINTS[intent]])
    if intent == "witness":
        ruling.do_not = list(NO_ADVICE)
    elif intent == "clarify":
        ruling.needs_clarification = "the message is unclear (council)"
        ruling.question = DEFAULT_CLARIFY_QUESTION
    elif intent == "protect":  # only with safety_risk ≥ threshold, or in a careful turn
        ruling.do_not = list(PROTECT_DO_NOT)
    return ruling


def _assemble(
    state: TurnState, ruling: Ruling, intent: str, model_tone: str | None, reasons: list[str]
) -> CouncilDecision:
    declined = advice_declined(state)
    do_not = list(ruling.do_not)
    if declined or intent == "witness" or careful(state):
        if declined:
            reasons.append("advice declined → do not give advice, whatever the intent")
        elif careful(state) and intent != "witness":
            reasons.append("careful after a safety disclosure → no advice, whatever the intent")
        do_not += NO_ADVICE
    if careful(state) and intent != "protect":  # the voice's careful mode
        do_not += CAREFUL_DO_NOT
    do_not += ALWAYS_DO_NOT
    no_advice = "give advice" in do_not
    claims = _ranked(state) if ruling.use_claims else []
    key_points = _key_points(
        ruling.key_points, claims, state.user_text, no_advice or intent != "guide"
    )
    question = _question(claims, state.user_text, no_advice) or ruling.question
    if question is not None and question != ruling.question:
        reasons.append("a question claim → asks_user")
    if question is None and intent != "protect" and _check_in(state):
        question = CAREFUL_QUESTION
        reasons.append("careful, soon after a protective reply → a gentle check-in")
    urgency = _urgency(state, ruling, claims, reasons)
    speech_act = SpeechAct(
        intent=intent,
        key_points=key_points,
        tone=_tone(intent, ruling.tone, model_tone, state),
        do_not=list(dict.fromkeys(do_not)),
        asks_user=[question] if question else None,
    )
    return CouncilDecision(
        speak=True,
        urgency=urgency,
        speech_act=speech_act,
        needs_clarification=ruling.needs_clarification,
        thinking="; ".join(reasons),
        deliberation_rounds=len(state.rounds),
        final_consensus=clamp(state.consensus),
    )


def _key_points(
    rule_points: list[str], claims: list[Claim], user_text: str, no_advice: bool
) -> list[str]:
    """The rule's points, then the strongest distinct claims; ≤ 3, ≤ 90 chars, no echo.

    A claim in the first person ("I miss her", "help me") is an agent writing as the
    person; in the voice's notes it made the 0.5B voice answer as them (measured), so it
    is never a point. Without advice (``no_advice``: declined, or any intent but guide),
    a recommendation or advice wording ("You should…") is not a point either.
    """
    points = [shorten(p, KEY_POINT_CHARS) for p in rule_points][:MAX_KEY_POINTS]
    user = clean(user_text, 4000)
    for claim in claims:
        if len(points) >= MAX_KEY_POINTS:
            break
        if claim.type == ClaimType.QUESTION:
            continue
        if no_advice and claim.type == ClaimType.RECOMMENDATION:
            continue  # a recommendation would steer the voice into advice
        text = shorten(_whole_sentences(clean(claim.text, 400)), KEY_POINT_CHARS)
        if len(text) < 3 or echoes(text, user) or any(similar(text, p) for p in points):
            continue
        if FIRST_PERSON.search(text) or (no_advice and ADVICE_WORDING.search(text)):
            continue
        points.append(text)
    return points


_SENTENCE_END: Final[re.Pattern[str]] = re.compile(r"[.!?](?=\s)")


def _whole_sentences(text: str) -> str:
    """A claim without the fragment its length cap cut ("… every night. You can" → "…
    every night."); a claim of one unfinished sentence is kept as it is."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    return text[: ends[-1]] if ends and text[ends[-1] :].strip() else text


FIRST_PERSON: Final[re.Pattern[str]] = re.compile(
    r"\bI\b|\bI['’](?:m|ve|d|ll)\b|\b(?:me|my|myself|mine)\b", re.IGNORECASE
)
ADVICE_WORDING: Final[re.Pattern[str]] = re.compile(
    r"\byou\s+(?:should|need\s+to|have\s+to|must|ought\s+to)\b|\bmake\s+sure\b"
    r"|\b(?:try|consider)\b|\bit(?:'s|\s+is)\s+important\s+to\b",
    re.IGNORECASE,
)


def _question(claims: list[Claim], user_text: str, no_advice: bool) -> str | None:
    """The strongest short question claim (never the user's own words), or None."""
    user = clean(user_text, 4000)
    for claim in claims:
        if claim.type != ClaimType.QUESTION:
            continue
        text = one_line(clean(claim.text, 400))
        if not 3 <= len(text) <= QUESTION_CHARS or echoes(text, user):
            continue
        if no_advice and ADVICE_QUESTION.search(text):
            continue
        return text if text.endswith("?") else text.rstrip(" .!") + "?"
    return None


def _urgency(state: TurnState, ruling: Ruling, claims: list[Claim], reasons: list[str]) -> Urgency:
    """The highest of: the rule's floor, the strongest claim, the sensors."""
    floor = ruling.urgency
    level = URGENCY_LEVELS.index(floor) if floor in URGENCY_LEVELS else 0
    strong = [c for c in claims if c.confidence >= 1]
    if strong:
        top = max(strong, key=lambda c: (c.urgency, c.confidence))
        by_claim = 2 if top.urgency >= 3 and top.confidence >= 2 else int(top.urgency >= 2)
        if by_claim > level:
            reasons.append(f"strongest claim urgency {top.urgency} → {URGENCY_LEVELS[by_claim]}")
            level = by_claim
    vulnerability = state.sensor("vulnerability")
    if vulnerability >= 0.8 and level < 2:
        reasons.append(f"vulnerability {fmt(vulnerability)} ≥ 0.8 → urgency high")
        level = 2
    elif (vulnerability >= SENSOR_THRESHOLD or state.sensor("rupture") >= SENSOR_THRESHOLD) and (
        level < 1
    ):
        level = 1
    safety = state.sensor("safety_risk")
    if safety >= SAFETY_WATCH_THRESHOLD and level < 2:
        reasons.append(f"safety_risk {fmt(safety)} ≥ {SAFETY_WATCH_THRESHOLD} → urgency high")
        level = 2
    if safety >= SAFETY_INTERRUPT_THRESHOLD:
        level = 3
    return URGENCY_LEVELS[level]


def _check_in(state: TurnState) -> bool:
    """A careful turn within ``CHECK_IN_TURNS`` of the last protective reply."""
    if not careful(state) or state.safety is None:
        return False
    ago = state.safety.before.protected_ago
    return ago is not None and ago < CHECK_IN_TURNS


def _tone(intent: str, rule_tone: str | None, model_tone: str | None, state: TurnState) -> str:
    """Tone from the intent (or the model) and the stance: warmth_level, arousal; gentle
    in a careful turn."""
    if intent == "protect":
        return "gentle, steady"
    if careful(state):
        return "gentle, calm"
    if rule_tone:
        parts = [t.strip() for t in rule_tone.split(",") if t.strip()]
    else:
        parts = [model_tone or BASE_TONE.get(intent, "warm"), "warm"]
    if state.stance.warmth_level < 0.15:  # distant: measured rather than warm
        parts = ["steady" if p == "warm" else p for p in parts]
    if state.stance.arousal >= 0.7 and intent != "celebrate":
        parts.append("calm")
    return ", ".join(dict.fromkeys(parts))


def _failsafe(state: TurnState, exc: Exception) -> CouncilOutcome:
    """A bug in the council still yields a safe decision (protect on any safety signal)."""
    reason = f"council error ({type(exc).__name__}) → safe default"
    try:
        risky = (
            state.sensor("safety_risk") >= SAFETY_INTERRUPT_THRESHOLD
            or "safety_interrupt" in state.flags
        )
    except Exception:
        risky = False
    intent = "protect" if risky else "witness"
    do_not = [*(PROTECT_DO_NOT if risky else NO_ADVICE), *ALWAYS_DO_NOT]
    decision = CouncilDecision(
        speak=True,
        urgency="critical" if risky else "medium",
        speech_act=SpeechAct(
            intent=intent,
            key_points=[INTENT_POINTS[intent]],
            tone="gentle, steady",
            do_not=do_not,
        ),
        thinking=reason,
    )
    return CouncilOutcome(decision, [reason], used_model=False)
