"""The reader: grounded readings of what the person said, for a voice that misreads (issue 28).

A 1.5B voice gets the facts of a conversation wrong: whose pain it is, what already
happened, what the person said they do not want. The 135M agents cannot help with that
(their labels barely depend on the message, docs/agents.md). The reader is one
grammar-constrained call, on a tier that reads well (``roles.reader``, the large tier by
default: the medium one copied whole lines, the companion's included, measured on the
corpus's dev split), over the person's own last three messages (never Rilai's: shown the
companion's lines, both models copied them back as facts). It answers

    {"facts": [up to 3 short third-person facts], "not_wanted": "tips" | "none"}

and code keeps only what is grounded in what they wrote (on a turn whose safety reading is
0.3 or more, or in the careful window after a disclosure, the reader does not run):

- a fact is 2–16 words, not in the first person ("He messaged me": the model copied their
  words instead of reading them), no phrase repeated, and at least 60 % of its content
  words (stemmed, see ``claims.normalise``; a word also matches one that shares its first
  five letters: "sitting" / "sit" do not, "cancelled" / "cancel" do) occur in their
  messages; each kept fact carries the sentence it rests on (its evidence);
- a fact must not read a question as a statement ("They remember what you told them about
  their interview" from "do you remember what i told you about my interview"), start like
  a question or a condition ("How to burn rice."), or turn their words around: a negation
  in the fact and none in its evidence, or the reverse ("say no" from "i always say yes");
- ``not_wanted`` is kept only when it is at most four words, all in their messages, in a
  sentence that says no ("pls no tips", "i don't need advice"): "to die slowly" from
  "so now i just sit here and die slowly" is not what they refused, and is dropped.

The kept facts go into the voice's notes ("What they have told you: …", ``speaking/
readings_note.py``) and the refusal into what to avoid. The reading is logged as the
``reader``'s AGENT_COMPLETED (``readings``, ``not_wanted``, ``dropped_readings``), so the
inspector, /why and ``rilai eval agents`` show it; a failure is AGENT_FAILED and the turn
goes on without it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM, ChatMessage, Completion
from rilai_desktop.turn.deliberation.claims import normalise
from rilai_desktop.turn.safety_state import CAREFUL_FLAG
from rilai_desktop.turn.state import Emit, TurnState

READER_ID: Final[str] = "reader"
SYSTEM_FILE: Final[str] = "agents/_reader.md"
MAX_FACTS: Final[int] = 3
FACT_CHARS: Final[int] = 90
NOT_WANTED_CHARS: Final[int] = 40
MESSAGE_CHARS: Final[int] = 400  # per message of theirs shown to the reader
MESSAGES: Final[int] = 3  # their last messages, this one included
MAX_TOKENS: Final[int] = 160
GROUNDED_SHARE: Final[float] = 0.6
MIN_WORDS, MAX_WORDS, MAX_REFUSAL_WORDS = 2, 16, 4
PREFIX: Final[int] = 5

SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "maxItems": MAX_FACTS,
            "items": {"type": "string", "maxLength": FACT_CHARS},
        },
        "not_wanted": {"type": "string", "maxLength": NOT_WANTED_CHARS},
    },
    "required": ["facts", "not_wanted"],
}

_WORDS = re.compile(r"[\w']+")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|me|my|mine|myself|we|our|us)\b", re.IGNORECASE)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")
_REFUSAL = re.compile(
    r"\b(?:no|not|don'?t|do not|dont|doesn'?t|stop|without|never|nada de|sin|pas de|kein\w*)\b",
    re.IGNORECASE,
)
_GARBLED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffd]")
_NONE = frozenset({"", "none", "no", "nothing", "n/a", "null"})
_NEGATION = re.compile(
    r"\b(?:no|not|never|nothing|nobody|none|cannot|dont|didnt|wont|cant|isnt|wasnt)\b|n't\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(
    r"^\s*(?:(?:do|did|does|can|could|would|will|are|is|was|were|have|should)\s+(?:you|i|we|u)\b"
    r"|(?:what|how|why|where|when|who|which)\s+(?:do|does|did|is|are|was|can|could|would|"
    r"should|will)\b)",
    re.IGNORECASE,
)
_NOT_A_FACT = re.compile(r"^\s*(?:how|what|why|where|when|who|if|whether)\b", re.IGNORECASE)
# the reader is not asked where safety is in question: one of its facts turned "everyone
# would be relieved if i stopped being around" into "They feel relieved if they stop being
# around" (measured on the corpus's test conversations); the safety path reads those turns
SAFETY_SKIP: Final[float] = 0.3


@dataclass(frozen=True)
class Reading:
    """A fact about the person and the sentence of theirs it rests on."""

    text: str
    evidence: str


@dataclass(frozen=True)
class Readings:
    facts: tuple[Reading, ...] = ()
    not_wanted: str = ""
    dropped: tuple[dict[str, str], ...] = field(default=())

    def as_payload(self) -> dict[str, Any]:
        return {
            "readings": [{"text": r.text, "evidence": r.evidence} for r in self.facts],
            "not_wanted": self.not_wanted,
            "dropped_readings": list(self.dropped),
        }


def their_messages(user_text: str, history: Sequence[Mapping[str, Any]]) -> list[str]:
    """Their last ``MESSAGES`` messages (this one last), each cut to MESSAGE_CHARS."""
    earlier = [
        str(m.get("content", ""))
        for m in history
        if isinstance(m, Mapping) and m.get("role") == "user"
    ]
    said = [" ".join(t.split())[:MESSAGE_CHARS] for t in [*earlier, user_text]]
    return [t for t in said if t][-MESSAGES:]


def reader_messages(system: str, said: Sequence[str]) -> list[ChatMessage]:
    wrote = " then ".join(json.dumps(t, ensure_ascii=False) for t in said)
    return [ChatMessage("system", system), ChatMessage("user", f"They wrote: {wrote}\nNotes:")]


def _stems(text: str) -> frozenset[str]:
    return normalise(text)


def _matches(word: str, pool: frozenset[str]) -> bool:
    return word in pool or (len(word) >= PREFIX and any(w[:PREFIX] == word[:PREFIX] for w in pool))


def _evidence(words: frozenset[str], said: Sequence[str]) -> str:
    return _evidence_at(words, said)[0]


def _evidence_at(words: frozenset[str], said: Sequence[str]) -> tuple[str, int]:
    """The sentence of theirs sharing most words with ``words``, and its message's index."""
    best, score, at = "", 0, -1
    for index, message in enumerate(said):
        for sentence in _SENTENCES.findall(message):
            hits = sum(_matches(w, _stems(sentence)) for w in words)
            if hits > score:
                best, score, at = sentence.strip(), hits, index
    return best, at


def why_not_fact(text: str, said: Sequence[str]) -> str | None:
    """None when ``text`` is a fact grounded in ``said``; else why it is dropped."""
    if _GARBLED.search(text):  # a model's invalid UTF-8 (lone surrogates, U+FFFD, controls)
        return "invalid characters"
    n = len(_WORDS.findall(text))
    if not MIN_WORDS <= n <= MAX_WORDS:
        return f"{n} words"
    if _FIRST_PERSON.search(_QUOTED.sub("", text)):
        return "first person: copied, not read"
    words = [w.casefold() for w in _WORDS.findall(text)]
    grams = [tuple(words[i : i + 3]) for i in range(len(words) - 2)]
    if len(grams) != len(set(grams)):
        return "repeats itself"
    if _NOT_A_FACT.match(text):
        return "not a fact"
    content = _stems(text)
    if not content:
        return "no content"
    pool = _stems(" ".join(said))
    share = sum(_matches(w, pool) for w in content) / len(content)
    if share < GROUNDED_SHARE:
        return f"not in what they wrote ({share:.0%} of its words)"
    evidence = _evidence(content, said)
    if _QUESTION.match(evidence) or evidence.endswith("?"):
        return "read from a question they asked"
    if bool(_NEGATION.search(text)) != bool(_NEGATION.search(evidence)):
        return "turns around what they said"  # "say no" from "i always say yes"
    return None


def refusal(text: str, said: Sequence[str]) -> str:
    """``text`` when it names what they said no to, in their words; else ""."""
    value = " ".join(text.split()).strip(" .,'\"").casefold()
    if value in _NONE or len(_WORDS.findall(value)) > MAX_REFUSAL_WORDS:
        return ""
    content = _stems(value)
    if not content:
        return ""
    for message in said:
        for sentence in _SENTENCES.findall(message):
            pool = _stems(sentence)
            if _REFUSAL.search(sentence) and all(_matches(w, pool) for w in content):
                return value
    return ""


def ground(parsed: Any, said: Sequence[str]) -> Readings:
    """The readings code keeps from the model's answer ``parsed``."""
    if not isinstance(parsed, Mapping):
        raise ValueError(f"the reply is not a JSON object: {str(parsed)[:80]!r}")
    facts: list[Reading] = []
    dropped: list[dict[str, str]] = []
    seen: set[frozenset[str]] = set()
    listed, wanted = parsed.get("facts") or [], parsed.get("not_wanted") or ""
    if not isinstance(listed, list) or not isinstance(wanted, str):  # not list("a string")
        raise ValueError(f"the reply's fields have the wrong types: {str(parsed)[:80]!r}")
    for raw in listed[:MAX_FACTS]:
        text = " ".join(str(raw).split())
        reason = why_not_fact(text, said)
        if reason is None and _stems(text) in seen:
            reason = "said twice"
        if reason is not None:
            dropped.append({"text": text, "reason": reason})
            continue
        evidence, at = _evidence_at(_stems(text), said)
        if at == len(said) - 1:  # the voice reads this message itself: said back, not read
            dropped.append({"text": text, "reason": "only says back this message"})
            continue
        seen.add(_stems(text))
        text = text if text.endswith((".", "!", "?")) else text + "."
        facts.append(Reading(text[0].upper() + text[1:], evidence))
    kept = refusal(wanted, said)
    if wanted.strip().casefold() not in _NONE and not kept:
        dropped.append({"text": wanted, "reason": "not something they said no to"})
    return Readings(tuple(facts), kept, tuple(dropped))


@dataclass
class Reader:
    """Runs the reading for a turn; ``read`` never raises (a failure is AGENT_FAILED)."""

    model: LLM
    system_text: str
    clock: Callable[[], float] = time.perf_counter

    def read(self, state: TurnState, emit: Emit) -> Readings:
        said = their_messages(state.user_text, state.history)
        if len(said) < 2 or not _stems(" ".join(said)):  # nothing earlier to keep to
            return Readings()
        if state.sensor("safety_risk") >= SAFETY_SKIP or CAREFUL_FLAG in state.flags:
            return Readings()
        emit(EventKind.AGENT_STARTED, {"agent_id": READER_ID, "wave": 0, "followup": False,
                                       "why": ["grounded reading (issue 28)"]})  # fmt: skip
        start = self.clock()
        try:
            completion = self.model.complete(
                reader_messages(self.system_text, said),
                schema=SCHEMA,
                max_tokens=MAX_TOKENS,
                temperature=0.0,
            )
            if not isinstance(completion, Completion):
                raise TypeError("the reader asked for a whole reply, not a stream")
            readings = ground(completion.parsed, said)
        except Exception as exc:  # a model error or a refused reply: the turn goes on
            emit(EventKind.AGENT_FAILED, {"agent_id": READER_ID, "error": str(exc)[:300],
                                          "reason": type(exc).__name__})  # fmt: skip
            return Readings()
        usage = completion.usage
        state.add_tokens(
            "agents", usage.prompt_tokens, usage.cached_prompt_tokens, usage.completion_tokens
        )
        observation = " ".join(r.text for r in readings.facts)[:300]
        emit(
            EventKind.AGENT_COMPLETED,
            {
                "agent_id": READER_ID,
                "observation": observation,
                "salience": 0.0,
                "urgency": 0,
                "confidence": 2 if readings.facts else 0,
                "claims": [],
                "processing_time_ms": int((self.clock() - start) * 1000),
                **readings.as_payload(),
            },
        )
        return readings
