"""Deterministic checks on a finished reply: leaks, loops, stumps, repeats, contradictions.

One place for the failures a person notices at once (issue 16, item 1), so the critics
(``critics.py``, the coherence critic) and ``rilai eval replies`` can never disagree:

- ``leak``: a run of :data:`LEAK_RUN` words from the voice's private texts (system prompt,
  notes, intent line, do-not list, critic feedback), or one of the notes' own markers
  (``critic_patterns.SYSTEM_ECHO``: "Private notes", "Avoid: …", "as an AI language model");
- ``loop``: a phrase of :data:`LOOP_WORDS`+ words said :data:`LOOP_TIMES`+ times ("I'm here
  to" ×5), or a doubled word ("any any");
- ``unfinished``: no sentence-final punctuation at the end (cut by the token limit: "Do not
  mention"), or a sentence that ends on a dangling article or conjunction ("… and the.");
- ``mood_contradiction``: the sensors (or plain cues in their message) read hurt and the
  reply says they are well, is "good to know you're feeling that way", or congratulates;
- ``help_desk``: a service-desk closing ("If you have any other questions…");
- ``self_description``: a description of itself as an information service ("an AI program
  designed to provide information"), or, to a person who is hurting, "I'm an AI…";
- ``repeat``: a sentence or sentence opening said twice in the reply, taken from Rilai's
  earlier replies, or their own message said back ("I don't think I'll ever be here again"
  to "I don't think I want to be here anymore").

Pure functions of their arguments: no model, no I/O, no clock.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from rilai_desktop.turn.deliberation.council_rules import (
    SAFETY_WATCH_THRESHOLD,
    SENSOR_THRESHOLD,
    celebration_cue,
    clean,
    words,
)
from rilai_desktop.turn.speaking import critic_patterns as P
from rilai_desktop.turn.speaking.arithmetic import wrong_sums
from rilai_desktop.turn.speaking.critic_copies import (
    COPIED_SHARE,
    copied_share,
    echoed_sentence,
    sentences,
)
from rilai_desktop.turn.speaking.reply_identity import identity_slips

REPLY_CHECK_KINDS: Final[tuple[str, ...]] = (
    "leak",
    "loop",
    "unfinished",
    "mood_contradiction",
    "help_desk",
    "self_description",
    "repeat",
    "identity",
    "wrong_sum",
)
LEAK_RUN: Final[int] = 5  # consecutive words shared with a private text
LOOP_WORDS: Final[int] = 3  # a phrase of this many words …
LOOP_TIMES: Final[int] = 3  # … said this many times is a loop
OPENING_WORDS: Final[int] = 6  # a sentence opening (the first words of a sentence)
ECHO_OPENING_WORDS: Final[int] = 4  # their sentence's first words, said back as Rilai's
_CAP: Final[int] = 20_000

# Runs of the private texts that an honest reply may say in its own voice (a meta reply:
# "I don't have human feelings or a body"). A leak run inside one of these is no leak.
SAYABLE: Final[tuple[str, ...]] = (
    "i don't have human feelings or a body",
    "i do not have human feelings or a body",
    "an ai without human feelings or a body",
    "a program without human feelings or a body",
    "i am an ai companion that runs on your own computer",
    "i'm an ai companion that runs on your own computer",
)
# Doubled words that English allows ("I know that that hurts", "no no", "ha ha").
_DOUBLE_OK: Final[frozenset[str]] = frozenset(
    {"that", "had", "ha", "haha", "no", "bye", "very", "so", "really", "yes", "yeah", "hey",
     "hi", "oh", "is", "do", "much", "more", "far", "well", "there"}
)  # fmt: skip
# A sentence that ends on one of these was cut ("… and the."): stranded prepositions
# ("what are you looking forward to?") are ordinary English and are not listed.
_DANGLING: Final[frozenset[str]] = frozenset(
    {"the", "a", "an", "and", "or", "but", "because", "my", "your", "their", "our", "its",
     "if", "than", "nor", "whose", "whether", "although", "though", "unless"}
)  # fmt: skip
_FIRST_PERSON: Final[frozenset[str]] = frozenset(
    {"i", "i'm", "i've", "i'll", "i'd", "my", "me", "myself"}
)
_CLOSERS: Final[str] = "\"'”’»)]*_"
_FINAL: Final[str] = ".!?…"
_SMILEYS = re.compile(r"(?:[:;]-?[)D(P]|<3|\^\^)$")
_WORD_RE = re.compile(r"[a-z0-9']+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?…])[\"'”’»)\]]*\s+|\n+")

# ── mood: what the sensors or their words read as hurt ──────────────────────────────
DISTRESS_SENSORS: Final[Mapping[str, float]] = {
    "vulnerability": SENSOR_THRESHOLD,
    "rupture": SENSOR_THRESHOLD,
    "safety_risk": SAFETY_WATCH_THRESHOLD,
}
DISTRESS_CUE = re.compile(
    r"\b(?:lonely|alone|sad|depress\w*|miserable|hopeless|heartbroken|grie(?:f|ving)"
    r"|exhausted|overwhelmed|anxious|scared|afraid|hurt(?:s|ing)?|crying|cried|awful|terrible"
    r"|struggl\w*|lost\s+my|miss(?:ing)?\s+(?:my|him|her|them)|(?:so|really|just)\s+tired"
    r"|tired\s+of|can't\s+(?:sleep|cope|take)|don't\s+want\s+to\s+be\s+here"
    r"|(?:is|are|been|was|feels?)\s+(?:so\s+|really\s+)?(?:hard|rough|tough|heavy)"
    # grief: "our anniversary would have been tomorrow" (the eval's widower)
    r"|would\s+have\s+been\s+(?:our|his|her|their|my)\s+(?:\w+\s+)?(?:anniversary|birthday)"
    r"|(?:our|his|her|their|my)\s+(?:\w+\s+)?(?:anniversary|birthday)\s+would\s+have\s+been"
    r"|(?:passed|died)\s+(?:away\s+)?(?:last|this|in|on|a\s+year))\b",
    re.IGNORECASE,
)
_STATES: Final[frozenset[str]] = frozenset(
    {"well", "fine", "good", "great", "better", "happy", "okay", "ok", "alright", "right",
     "positive"}
)  # fmt: skip
_STATE = r"(?:well|fine|good|great|better|happy|okay|ok|alright|all\s+right|positive)"
_WELL = P._any(
    rf"\byou(?:'re|\s+are)\s+(?:feeling|doing)\s+(?:so\s+|really\s+|very\s+)?{_STATE}\b",
    rf"\byou(?:'re|\s+are)\s+(?:so\s+)?{_STATE}\b(?!\s+(?:with|about|to|that|at|off|for|as|than)\b)",
    rf"\byou\s+(?:seem|sound)\s+(?:to\s+be\s+)?(?:so\s+|really\s+)?(?:{_STATE}|in\s+good\s+spirits)\b",
    rf"\b(?:feeling|doing)\s+{_STATE}\s+(?:today|now|again)\b",
)
_GLAD_THAT_WAY = P._any(
    r"\b(?:good|great|nice|glad|happy|wonderful)\s+(?:to\s+(?:know|hear|see)\s+)?(?:that\s+)?"
    r"you(?:'re|\s+are)\s+feeling\s+(?:that|this|the\s+same)\s+way\b",
    r"\b(?:glad|happy|good|great|nice)\s+to\s+(?:hear|know)(?:\s+(?:that|it|this))?\s*[.!]",
    r"\bthat(?:'s|\s+is)\s+(?:so\s+|really\s+)?(?:great|wonderful|fantastic|awesome|amazing"
    r"|excellent|good)(?:\s+news)?\s*[.!]",
    # "That's a wonderful anniversary! … Enjoy your anniversary" to a widower
    r"\bthat(?:'s|\s+is)\s+an?\s+(?:great|wonderful|fantastic|lovely|amazing)\s+\w+\s*!",
    r"\benjoy\s+(?:your|the)\s+(?:anniversary|birthday|day|evening|weekend)\b",
)
_WISHED: Final[frozenset[str]] = frozenset(
    {"hope", "hoping", "wish", "if", "whether", "until", "want", "need", "make"}
)
GOOD_NEWS = re.compile(  # some good news in a message that also reads as hurting
    r"\b(?:good|better|great|glad|happy|relieved|proud|finally|went\s+well|worked\s+out)\b",
    re.IGNORECASE,
)
_CONGRATS = P._any(r"\bcongrat(?:ulation)?s\b", r"\b(?:great|good|wonderful|fantastic)\s+news\b")

# ── help desk and self-description ─────────────────────────────────────────────────
HELP_DESK = P._any(
    r"\bif\s+you\s+have\s+any\s+(?:other|more|further|additional)?\s*questions\b",
    r"\b(?:need|require|want)\s+(?:any\s+)?(?:further|more|additional|other)\s+(?:assistance"
    r"|help|information)\b",
    r"\bfeel\s+free\s+to\s+(?:ask|contact|reach\s+out\s+to\s+me)\b",
    r"\b(?:don't|do\s+not)\s+hesitate\s+to\s+(?:ask|contact|reach\s+out)\b",
    r"\bhow\s+(?:can|may|could)\s+I\s+(?:help|assist)\s+you\s+today\b",
    r"\bhow\s+(?:can|may|could)\s+I\s+(?:help|assist)\s+you\s*\?",  # the eval's hello to Dana
    r"\bhow\s+may\s+I\s+(?:help|assist)\b",
    r"\bis\s+there\s+anything\s+(?:else\s+)?I\s+can\s+(?:help|assist|do\s+for\s+you)\b",
    r"\blet\s+me\s+know\s+if\s+(?:there(?:'s|\s+is)|you\s+need)\s+anything\s+(?:else\s+)?"
    r"(?:I\s+can|you\s+need|to)\b",
    # the bare closings (seen on the real voice, issue 31: they were printed, not trimmed)
    r"\blet\s+me\s+know\s+if\s+(?:there(?:'s|\s+is)|you\s+need)\s+anything(?:\s+else)?\s*[.!]",
    r"\blet\s+me\s+know\s+if\s+you\s+need\s+any\s+(?:other\s+|more\s+|further\s+)?"
    r"(?:help|support|assistance)\b",
    r"\bI(?:'m|\s+am)\s+(?:just\s+|always\s+)?here\s+to\s+(?:help|assist)\s+(?:you\s+)?"
    r"(?:with|in\s+any)\b",
    r"\bI(?:'m|\s+am)\s+(?:just\s+|always\s+)?here\s+to\s+(?:assist|help\s+and)\b",
    r"\bhappy\s+to\s+(?:help|assist)\s*[!.]",
    r"\bI\s+hope\s+(?:this|that)\s+helps\b",
    r"\bI(?:'m|\s+am)\s+(?:just\s+|always\s+)?here\s+to\s+help\s*[.!]",
    r"\bdo\s+you\s+have\s+any\s+(?:other\s+|more\s+|further\s+)?questions\b",
    r"\bshare\s+my\s+knowledge\b",
    r"\bkeep\s+you\s+(?:informed|updated|posted)\b",
    r"\blatest\s+developments\b",
    r"\bthank\s+you\s+for\s+(?:contacting|reaching\s+out\s+to)\s+(?:us|me)\b",
)
SELF_SERVICE = P._any(  # an information service, never a companion
    r"\b(?:designed|programmed|built|trained|created|made|here)\s+to\s+(?:provide|give|offer)"
    r"\s+(?:you\s+(?:with\s+)?)?(?:information|answers|assistance)\b",
    r"\b(?:provide|give)\s+information\s+and\s+answer\s+questions\b",
    r"\b(?:designed|programmed|built|trained)\s+to\s+(?:answer|assist|help)\s+(?:users|questions"
    r"|people|you)\b",
    r"\bI(?:'m|\s+am)\s+(?:an?\s+)?(?:AI|artificial\s+intelligence)\s+(?:program|model|system"
    r"|assistant)\s+(?:designed|programmed|built|trained|created)\b",
)
SELF_NATURE = P._any(  # fine when asked what Rilai is, not as the answer to hurt
    r"(?:^|[.!?]\s+)(?:well,?\s+|but\s+)?I(?:'m|\s+am)\s+(?:just\s+|only\s+|merely\s+)?(?:an?\s+)?"
    r"(?:AI|artificial\s+intelligence|computer\s+program|program|language\s+model|chatbot"
    r"|bot|virtual\s+assistant|machine)\b",
    r"(?:^|[.!?]\s+)as\s+an?\s+(?:AI|artificial\s+intelligence|program|machine)\b",
    flags=re.IGNORECASE | re.MULTILINE,
)

ABOUT_RILAI = re.compile(  # they talk about what Rilai is: saying it is an AI answers them
    r"\b(?:you(?:'re|\s+are)?\s+(?:just\s+|only\s+|even\s+)?(?:an?\s+)?(?:ai|bot|robot"
    r"|program|machine|real|human|person|alive|conscious)|are\s+you\s+(?:even\s+|actually\s+"
    r"|really\s+|just\s+)?(?:an?\b|real|human|alive|conscious)|do\s+you\s+(?:feel"
    r"|have|care|understand|remember))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ReplyFinding:
    """One failed check: its kind (one of :data:`REPLY_CHECK_KINDS`) and what matched."""

    kind: str
    detail: str


def check_reply(
    reply: str,
    *,
    user_text: str,
    private_texts: Sequence[str] = (),
    earlier_replies: Sequence[str] = (),
    sensors: Mapping[str, float] | None = None,
    earlier_user_texts: Sequence[str] = (),
) -> list[ReplyFinding]:
    """Every finding on ``reply``, in :data:`REPLY_CHECK_KINDS` order ([] for a good reply).

    ``private_texts``: what went into the voice prompt that must never be said (system
    prompt, notes, intent line, do-not list, critic feedback). ``earlier_replies``: Rilai's
    earlier replies in this conversation. ``sensors``: sensor probabilities by name.
    ``earlier_user_texts``: their earlier messages (identity: their life told back as
    Rilai's, "I moved to Lisbon", checked against this message and those).
    An empty reply has no findings (the critics judge silence with the decision).
    """
    text = clean(reply, _CAP).strip() if isinstance(reply, str) else ""
    if not text:
        return []
    theirs = clean(user_text, _CAP) if isinstance(user_text, str) else ""
    found: list[ReplyFinding] = []
    found += _leaks(text, theirs, private_texts)
    found += _loops(text)
    found += _unfinished(text) or _garbled(
        text, " ".join([theirs, *(t for t in earlier_user_texts if isinstance(t, str))])
    )
    found += _mood(text, theirs, sensors or {})
    found += [ReplyFinding("help_desk", f"help-desk line: {h.phrase!r}") for h in
              P.find(HELP_DESK, text, negation="none")[:2]]  # fmt: skip
    found += _self_description(text, theirs, sensors or {})
    found += _repeats(text, theirs, earlier_replies)
    said = [theirs, *(clean(t, _CAP) for t in earlier_user_texts if isinstance(t, str))]
    found += [ReplyFinding("identity", f"speaks as the person: 'I/my {slip}'")
              for slip in identity_slips(text, said)[:2]]  # fmt: skip
    found += [ReplyFinding("wrong_sum", why) for why in wrong_sums(text, theirs)[:2]]
    return found


def help_desk_line(text: str) -> bool:
    """A help-desk phrase in ``text`` ("If you have any questions…", "feel free to ask")."""
    return bool(P.find(HELP_DESK, clean(text, _CAP), negation="none"))


def kinds(findings: Sequence[ReplyFinding]) -> list[str]:
    """The distinct kinds among ``findings``, in :data:`REPLY_CHECK_KINDS` order."""
    present = {f.kind for f in findings}
    return [k for k in REPLY_CHECK_KINDS if k in present]


# ── leak ─────────────────────────────────────────────────────────────────────────────


def _ngrams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def _leaks(text: str, theirs: str, private_texts: Sequence[str]) -> list[ReplyFinding]:
    out = [
        ReplyFinding("leak", f"reads its notes aloud: {h.phrase!r}")
        for h in P.find(P.SYSTEM_ECHO, text, negation="none")[:2]
    ]
    private: set[tuple[str, ...]] = set()
    for source in private_texts:
        if isinstance(source, str):
            private |= _ngrams(words(clean(source, _CAP)), LEAK_RUN)
    if not private:
        return out
    allowed = _ngrams(words(theirs), LEAK_RUN)
    for phrase in SAYABLE:
        allowed |= _ngrams(phrase.split(), LEAK_RUN)
    said = words(text)
    hit = [
        tuple(said[i : i + LEAK_RUN]) in private and tuple(said[i : i + LEAK_RUN]) not in allowed
        for i in range(len(said) - LEAK_RUN + 1)
    ]
    i = 0
    while i < len(hit) and len(out) < 3:
        if not hit[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(hit) and hit[j + 1]:
            j += 1
        run = " ".join(said[i : j + LEAK_RUN])
        out.append(ReplyFinding("leak", f"repeats its private notes: {run[:120]!r}"))
        i = j + LEAK_RUN
    return out


# ── loop ─────────────────────────────────────────────────────────────────────────────


def _loops(text: str) -> list[ReplyFinding]:
    out: list[ReplyFinding] = []
    said = _WORD_RE.findall(text.lower())
    counts = Counter(tuple(said[i : i + LOOP_WORDS]) for i in range(len(said) - LOOP_WORDS + 1))
    looped = [g for g, c in counts.items() if c >= LOOP_TIMES]
    if looped:
        top = max(looped, key=lambda g: counts[g])
        out.append(ReplyFinding("loop", f"says {' '.join(top)!r} {counts[top]} times"))
    for a, b in itertools.pairwise(said):
        if a == b and a not in _DOUBLE_OK and not any(c.isdigit() for c in a):
            out.append(ReplyFinding("loop", f"doubled word: '{a} {b}'"))
            break
    return out


# ── unfinished ───────────────────────────────────────────────────────────────────────


def _is_emoji(ch: str) -> bool:
    return unicodedata.category(ch) == "So" or 0x1F000 <= ord(ch) <= 0x1FAFF


def ends_a_sentence(text: str) -> bool:
    """True when ``text`` ends like a finished sentence: . ! ? … (closing quotes or brackets
    after them allowed), an emoji or a smiley."""
    tail = text.rstrip()
    while tail and (_is_emoji(tail[-1]) or tail[-1] in "\ufe0f\u200d"):
        if _is_emoji(tail[-1]):
            return True
        tail = tail[:-1]
    if _SMILEYS.search(tail):
        return True
    tail = tail.rstrip(_CLOSERS + " ")
    return bool(tail) and tail[-1] in _FINAL


def _cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0x3400 <= code <= 0x9FFF  # CJK ideographs
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0xF900 <= code <= 0xFAFF
    )


def _garbled(text: str, theirs: str) -> list[ReplyFinding]:
    """Words in a script the person never wrote in ("Could you say a bit更多 about…": the
    Qwen voice slips into Chinese mid-sentence) — a reply broken off into another language."""
    if any(_cjk(ch) for ch in theirs):
        return []
    foreign = "".join(ch for ch in text if _cjk(ch))
    if foreign:
        return [ReplyFinding("unfinished", f"breaks into another script: {foreign[:20]!r}")]
    return []


def _unfinished(text: str) -> list[ReplyFinding]:
    if not ends_a_sentence(text):
        last = " ".join(text.split()[-4:])
        return [ReplyFinding("unfinished", f"ends mid-sentence: '…{last[-60:]}'")]
    for sentence in _SENTENCE_SPLIT.split(text):
        tokens = _WORD_RE.findall(sentence.lower())
        if len(tokens) >= 2 and tokens[-1] in _DANGLING and not sentence.rstrip().endswith("?"):
            return [ReplyFinding("unfinished", f"sentence ends on {tokens[-1]!r}: {sentence!r}")]
    return []


# ── mood contradiction ───────────────────────────────────────────────────────────────


def _reading(sensors: Mapping[str, float], name: str) -> float:
    """A sensor's probability; 0.0 when absent or not a number."""
    value = sensors.get(name, 0.0) if isinstance(sensors, Mapping) else 0.0
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value == value
    return float(value) if ok else 0.0


def hurting(
    user_text: str, sensors: Mapping[str, float], names: Sequence[str] = tuple(DISTRESS_SENSORS)
) -> str:
    """Why the person reads as hurting ("vulnerability 0.72", "'lonely'"), or ""."""
    for name in names:
        value = _reading(sensors, name)
        if value >= DISTRESS_SENSORS.get(name, SENSOR_THRESHOLD):
            return f"{name} {value:.2f}"
    cue = DISTRESS_CUE.search(user_text[:_CAP])
    return repr(" ".join(cue.group(0).split())) if cue else ""


def _mood(text: str, theirs: str, sensors: Mapping[str, float]) -> list[ReplyFinding]:
    why = hurting(theirs, sensors)
    if not why:
        return []
    their_words = set(words(theirs))
    for hit in P.find(_WELL, text):
        said = _WORD_RE.findall(hit.phrase.lower())
        state = next((w for w in said if w in _STATES), said[-1])
        wished = not _WISHED.isdisjoint(P._clause_before(text, hit.start))  # "I hope you're ok"
        if state not in their_words and not wished:  # "… better" to "I feel a bit better"
            return [ReplyFinding("mood_contradiction", f"{hit.phrase!r} but {why}")]
    hits = P.find(_GLAD_THAT_WAY, text)
    if _some_good_news(theirs):  # "it was hard but good": "glad to hear it." fits
        hits = [h for h in hits if "way" in h.phrase.lower()]
    elif not celebration_cue(theirs):  # "I got the job but I'm scared": congratulations fit
        hits += P.find(_CONGRATS, text)
    if hits:
        return [ReplyFinding("mood_contradiction", f"{hits[0].phrase!r} but {why}")]
    return []


def _some_good_news(theirs: str) -> bool:
    text = theirs[:_CAP]
    return any(not P.negated(text, m.start()) for m in GOOD_NEWS.finditer(text))


# ── self-description ─────────────────────────────────────────────────────────────────


def _self_description(text: str, theirs: str, sensors: Mapping[str, float]) -> list[ReplyFinding]:
    service = P.find(SELF_SERVICE, text, negation="none")
    if service:
        return [ReplyFinding("self_description", f"describes itself: {service[0].phrase!r}")]
    asked = _reading(sensors, "ai_feelings_probe") >= SENSOR_THRESHOLD or bool(
        ABOUT_RILAI.search(theirs[:_CAP])
    )
    why = hurting(theirs, sensors, ("vulnerability", "safety_risk"))  # anger at Rilai: meta
    if why and not asked:
        nature = P.find(SELF_NATURE, text, negation="none")
        if nature:
            phrase = nature[0].phrase.lstrip(".!? ")
            return [ReplyFinding("self_description", f"answers hurt ({why}) with {phrase!r}")]
    return []


# ── repeat ───────────────────────────────────────────────────────────────────────────


_CONTRACTION = re.compile(r"'(?:ll|m|ve|d|re|s)$")


def _openings(text: str, n: int, *, plain: bool = False) -> list[str]:
    """The first ``n`` words of each sentence with ``n``+ words (``plain``: "i'll" → "i")."""
    out = []
    for sentence in P.SENTENCES.split(text[:_CAP]):
        tokens = words(sentence)
        if plain:
            tokens = [_CONTRACTION.sub("", t) for t in tokens]
        if len(tokens) >= n:
            out.append(" ".join(tokens[:n]))
    return out


def _repeats(text: str, theirs: str, earlier: Sequence[str]) -> list[ReplyFinding]:
    out: list[ReplyFinding] = []
    own = sentences(text)
    twice = [s for s, c in Counter(own).items() if c >= 2]
    opened = [o for o, c in Counter(_openings(text, OPENING_WORDS)).items() if c >= 2]
    if twice:
        out.append(ReplyFinding("repeat", f"says a sentence twice: {twice[0][:80]!r}"))
    elif opened:
        out.append(ReplyFinding("repeat", f"opens two sentences with {opened[0]!r}"))
    before = [clean(e, _CAP) for e in earlier if isinstance(e, str)]
    said = frozenset(s for e in before for s in sentences(e))
    openings = {o for e in before for o in _openings(e, OPENING_WORDS)}
    copied = next((s for s in own if s in said), None)
    reopened = next((o for o in _openings(text, OPENING_WORDS) if o in openings), None)
    if copied:
        out.append(ReplyFinding("repeat", f"repeats an earlier reply: {copied[:80]!r}"))
    elif reopened:
        out.append(ReplyFinding("repeat", f"opens like an earlier reply: {reopened!r}"))
    if not theirs.strip():
        return out
    share = copied_share(text, frozenset(sentences(theirs)))
    echoed = echoed_sentence(text, theirs)
    theirs_open = {o for o in _openings(theirs, ECHO_OPENING_WORDS, plain=True)
                   if not _FIRST_PERSON.isdisjoint(o.split())}  # fmt: skip
    mine = _openings(text, ECHO_OPENING_WORDS, plain=True)
    as_them = next((o for o in mine if o in theirs_open), None)
    if share >= COPIED_SHARE:
        out.append(ReplyFinding("repeat", f"{share:.0%} of it repeats their message"))
    elif echoed:
        out.append(ReplyFinding("repeat", f"says their message back: {echoed[:60]!r}"))
    elif as_them:
        out.append(ReplyFinding("repeat", f"says their message back as its own: {as_them!r}"))
    return out
