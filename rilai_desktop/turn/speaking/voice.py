"""The voice (stage 6b): what the runner needs to render the council's decision as a reply.

The runner builds the messages with :func:`voice_messages` (``voice_prompt.py``), streams
``model.complete(messages, stream=True, max_tokens=VOICE_MAX_TOKENS,
temperature=VOICE_TEMPERATURE, stop=VOICE_STOP)`` itself, then passes the text through
:func:`clean_reply`. Two replies never come from a model:

- :func:`safety_reply`, the protective answer to a safety interrupt. Safety must not depend
  on a 0.5B model, so it is fixed text with crisis resources in the person's language, by
  situation (first, repeat, retraction, presence) and variant: ``safety_reply.py``,
  re-exported here with :func:`about_someone_else`;
- :func:`fallback_reply`, said when every generated attempt failed a blocking critic: short,
  fitting the intent, and built to pass the critics (no advice, no feelings, no history).

Nothing here raises on bad input; missing prompt files fall back to built-in text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Final

from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.speaking.arithmetic import sum_answer
from rilai_desktop.turn.speaking.fallback import DEFAULT_VARIANTS, choose, memory_answer
from rilai_desktop.turn.speaking.fallback import kind_of as fallback_kind
from rilai_desktop.turn.speaking.prompt_text import cut, strip_controls, strip_template_tokens
from rilai_desktop.turn.speaking.reply_checks import help_desk_line
from rilai_desktop.turn.speaking.safety_reply import (
    DEFAULT_RESOURCES,
    DEFAULT_SAFETY,
    UNNAMED_PERSON,
    about_someone_else,
    safety_reply,
)
from rilai_desktop.turn.speaking.voice_prompt import (
    intent_of,
    parse_sections,
    private_texts,
    voice_messages,
    voice_prompt_text,
)
from rilai_desktop.turn.state import TurnState

__all__ = [
    "DEFAULT_RESOURCES",
    "DEFAULT_SAFETY",
    "INTENTS",
    "MAX_REPLY_CHARS",
    "UNNAMED_PERSON",
    "VOICE_MAX_TOKENS",
    "VOICE_STOP",
    "VOICE_TEMPERATURE",
    "about_someone_else",
    "clean_reply",
    "fallback_reply",
    "safety_reply",
    "voice_messages",
    "voice_prompt_text",
]

VOICE_MAX_TOKENS: Final[int] = 110  # 1–4 sentences; the rest would be cut anyway
VOICE_TEMPERATURE: Final[float] = 0.6
VOICE_STOP: Final[tuple[str, ...]] = (
    "\nUser:",
    "\nuser:",
    "\nHuman:",
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "</s>",
    "<<<",
)
MAX_REPLY_CHARS: Final[int] = 1200
MIN_TRIMMED_WORDS: Final[int] = 6  # a reply trimmed to its last full sentence keeps this many

# the first variant of each kind (prompts/voice/fallback.md holds them all)
DEFAULT_FALLBACKS: Final[Mapping[str, str]] = {k: v[0] for k, v in DEFAULT_VARIANTS.items()}
FOLLOW_UP_QUESTION: Final[str] = "Would you like to say more?"

_RAW_CAP: Final[int] = 20_000
_WS = re.compile(r"\s+")


def _sections(name: str, prompts: Prompts) -> dict[str, list[str]]:
    text = prompts.get(f"voice/{name}")
    return {} if text is None else parse_sections(text)


def fallback_reply(state: TurnState, *, prompts: Prompts) -> str:
    """A short, safe, deterministic reply built from the decision and the sensors
    (``fallback.py``; variants in ``prompts/voice/fallback.md``).

    Used when every generated attempt failed a blocking critic. A safety interrupt or the
    protect intent gets :func:`safety_reply`; a silent turn gets "". The variant names the
    feeling their words show (witness), never repeats what Rilai said earlier in the
    conversation, and passes ``reply_checks``. A memory question gets what they said, a sum
    question its answer (``arithmetic.sum_answer``).
    """
    decision = state.decision
    intent = intent_of(decision)
    if intent == "protect" or "safety_interrupt" in state.flags:
        return safety_reply(state, prompts=prompts)
    if decision is not None and not decision.speak:
        return ""
    kind = fallback_kind(state, intent)
    remembered = memory_answer(state)
    if remembered:
        return remembered
    worked_out = sum_answer(state.user_text) if isinstance(state.user_text, str) else ""
    if worked_out:  # "what's 17 times 23?" and every attempt got the sum wrong
        return worked_out
    variants = _sections("fallback.md", prompts).get(kind) or DEFAULT_VARIANTS[kind]
    asks = decision is not None and bool(decision.speech_act.asks_user)
    return choose(
        state,
        kind,
        variants,
        follow_up=FOLLOW_UP_QUESTION if asks else "",
        private=private_texts(state, prompts=prompts),
    )


# --- cleaning what the model wrote ------------------------------------------------------
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.IGNORECASE | re.DOTALL)
_NAMES = r"rilai|assistant|ai|bot|companion|response|reply|answer|model"
_LEADING = re.compile(
    rf"^\s*(?:<\|[^|<>\n]{{0,40}}\|>|\[/?INST\]|</?s>|<start_of_turn>|[*_]*\s*(?:{_NAMES})"
    rf"\s*[*_]*\s*:[*_]*|(?:assistant|model)[ \t]*\n"
    r"|rilai'?s\s+(?:reply|response|answer)(?:\s+is)?\s*:?"
    r"|(?:sure|okay|ok|certainly)?[!,.]?\s*here(?:'s|\s+is)\b[^:\n]{0,60}?"
    r"\b(?:reply|response|respond|answer)\w*\s*:)",
    re.IGNORECASE,
)
_TURN_END = re.compile(
    r"<\|(?:im_end|im_start|endoftext|eot_id|end|start_header_id)\|>|</s>|\[INST\]"
    r"|<(?:start|end)_of_turn>|<<<|(?:^|\n)[ \t]*[*_]*(?:user|human|the\s+user|their\s+message)"
    r"[*_]*[ \t]*:",
    re.IGNORECASE,
)
# Lines that only echo the voice prompt's notes (voice_prompt.py): dropped from the reply.
_SCAFFOLD = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:(?:how\s+to\s+answer|tone|key\s+points|do\s+not|avoid|ask|you\s+could"
    r"\s+ask|fix|their\s+message|earlier|still\s+open|worth\s+touching\s+on)\s*:"
    r"|private\s+notes\b|what\s+you\s+(?:know|remember)\s+about\s+them\b"
    r"|your\s+last\s+draft\s+was\s+rejected\b)",
    re.IGNORECASE,
)
_LINE_MARKUP = re.compile(
    r"^\s*(?:(?:-{3,}|={3,}|\*{3,})\s*$|#{1,6}\s+|[-*•]\s+|\d{1,2}[.)]\s+|>\s*)"
)
_EMPHASIS = re.compile(r"\*\*|__")
_ANGLES = re.compile(r"<{2,}|>{2,}")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s|$)")
_WORD = re.compile(r"\w")
_QUOTES: Final[Mapping[str, str]] = {
    '"': '"',
    "“": "”",
    "„": "“",
    "«": "»",
    "'": "'",
    "‘": "’",
    "`": "`",
}


def _strip_leading(text: str) -> str:
    """Role prefixes ("Rilai:", "Assistant:") and template tokens at the very start."""
    for _ in range(10):
        stripped = _LEADING.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    return text.lstrip()


def _cut_at_turn_end(text: str) -> str:
    """Drop everything from the first end-of-turn token or "User:" line after some text."""
    for match in _TURN_END.finditer(text):
        if text[: match.start()].strip():
            return text[: match.start()]
    return text


def _clean_line(line: str) -> str:
    """One line without headings, bullets or bold; prompt scaffolding the model parroted: ""."""
    if _SCAFFOLD.match(line):
        return ""
    return _EMPHASIS.sub("", _LINE_MARKUP.sub("", line)).strip()


def _unquote(text: str) -> str:
    """Quotes around the whole reply (or a lone opening quote cut short) removed."""
    for _ in range(3):
        if len(text) < 2 or text[0] not in _QUOTES:
            return text
        opener, closer = text[0], _QUOTES[text[0]]
        inner = text[1:-1] if text.endswith(closer) else text[1:]
        apostrophe = opener in ("'", "‘")  # I'm, don't: apostrophes inside are normal
        if not apostrophe and (opener in inner or closer in inner):
            return text
        if not text.endswith(closer) and (apostrophe or closer in inner):
            return text
        text = inner.strip()
    return text


def _dedupe_sentences(text: str) -> str:
    """Tiny models loop: keep the first of sentences that repeat word for word."""
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.!?…])\s+", text):
        key = "".join(ch for ch in sentence.casefold() if ch.isalnum())
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    return " ".join(kept)


def _last_sentence_end(text: str) -> int:
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    return ends[-1] if ends else -1


def _drop_half_sentence(text: str) -> str:
    """Keep up to the last . ! ? when what follows is a sentence the token limit cut and
    what is kept is still a real reply (:data:`MIN_TRIMMED_WORDS` words or more). A shorter
    stub ("Oh." of "Oh. I know how the evenings get") is left whole: the critics fail it as
    unfinished (``reply_checks``) and the voice tries again."""
    end = _last_sentence_end(text)
    if 0 < end < len(text) and _WORD.search(text[end:]):
        kept = text[:end]
        return kept if len(kept.split()) >= MIN_TRIMMED_WORDS else text
    return text


def drop_help_desk_close(text: str) -> str:
    """Drop the help-desk sentences a reply closes with ("If you have any questions or need
    support, I'm here to help.") when what is left is still a real reply (at least
    :data:`MIN_TRIMMED_WORDS` words). The 1.5B voice ends most replies that way; measured
    on one turn, three whole regenerations (67 s) each ended in such a line and the turn
    fell back to a template. A help-desk line inside the reply is left for the critics."""
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    sentences = [text[a:b] for a, b in itertools.pairwise(starts)]
    tail = text[starts[-1] :]
    if tail.strip():
        sentences.append(tail)
    while len(sentences) > 1 and help_desk_line(sentences[-1]):
        kept = "".join(sentences[:-1]).strip()
        if len(kept.split()) < MIN_TRIMMED_WORDS:
            break
        sentences.pop()
    return "".join(sentences).strip()


def _strip_tokens(text: str) -> str:
    """Template tokens and runs of angle brackets (our markers' remnants), until none re-form."""
    for _ in range(8):
        cleaned = _ANGLES.sub("", strip_template_tokens(text))
        if cleaned == text:
            break
        text = cleaned
    return text


def clean_reply(text: str) -> str:
    """The model's reply made presentable: no role prefixes, template tokens, wrapping quotes,
    parroted prompt lines, repeated sentences or half sentence cut by the token limit; one
    paragraph; at most ``MAX_REPLY_CHARS``. "" when nothing usable is left.
    """
    if not isinstance(text, str) or not text:
        return ""
    text = _THINK.sub(" ", text[:_RAW_CAP])
    text = "\n".join(strip_controls(line) for line in text.splitlines())
    text = _strip_tokens(_cut_at_turn_end(_strip_leading(text)))
    text = " ".join(line for line in map(_clean_line, text.split("\n")) if line)
    text = _strip_leading(_WS.sub(" ", text).strip())
    text = _dedupe_sentences(_unquote(text))
    text = _drop_half_sentence(text).strip()
    text = drop_help_desk_close(text)
    if len(text) > MAX_REPLY_CHARS:
        head = text[:MAX_REPLY_CHARS]
        end = _last_sentence_end(head)
        text = head[:end] if end >= MAX_REPLY_CHARS // 4 else cut(text, MAX_REPLY_CHARS)
    # removing markup ("**", bullets) can join the halves of a token: one last pass
    return _WS.sub(" ", _strip_tokens(text)).strip()
