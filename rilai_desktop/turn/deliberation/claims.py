"""Claim text analysis shared by the reducer and the deliberation: words, polarity, stance.

The tiny agent models repeat claims verbatim and near-verbatim ("User seems stressed about
work." / "The user is stressed about work"), so every claim list is deduped before it is
counted: otherwise one chatty agent would look like a chorus and win every consensus.

Everything here is deterministic text maths (regexes compiled once, no model): a claim's
*content words* (lowercase, punctuation and a small stop-word list dropped, light plural
stemming), its *polarity* (does it contain a negation), and its *stance* on four axes
(advice, push, questions, reassurance) read from word-boundary patterns. Two claims that
oppose each other (``opposition``) are never merged, however many words they share:
"user is at risk" and "user is not at risk" must stay two claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Final

from rilai_desktop.contracts import Claim

# Texts longer than this are cut before analysis: a claim is ≤ 200 characters by contract,
# and a 100 KB hostile string must not cost more than a normal one.
MAX_ANALYSED_CHARS: Final = 2000
MERGE_SIMILARITY: Final = 0.6  # same-type claims at least this similar are one claim
MIN_CONTAINED_WORDS: Final = 2  # "contains the other's words" only counts from 2 words up

STOP_WORDS: Final[frozenset[str]] = frozenset(
    """
    a an the and or but if then so than of to in on at by for with about from into onto over
    under as is are was were be been being am it its this that these those there here i me my
    we us our you your he him his she her they them their has have had do does did done will
    would should could can may might must shall just very really quite some any more most
    much also too still seem seems seemed seeming appear appears appeared likely probably
    maybe perhaps possibly what which who whom whose how why when where while right now
    currently today
    """.split()  # noqa: SIM905 - a word list reads better as text
)
# Negation words (apostrophes are removed before matching: "don't" -> "dont"). They are
# not content words: polarity is tracked separately so that negation never hides in overlap.
NEGATORS: Final[frozenset[str]] = frozenset(
    """
    not no never none nothing nobody neither nor without cannot cant dont doesnt didnt isnt
    arent wasnt werent wont wouldnt shouldnt couldnt hasnt havent hadnt mustnt aint
    """.split()  # noqa: SIM905
)

_WORD = re.compile(r"[^\W_]+")
_SPACES = re.compile(r"\s+")


# Within one turn the same text is read once per agent and claim; across turns the texts
# differ. The keys include whole turn contexts (up to MAX_ANALYSED_CHARS each), so 4,096 of
# them held megabytes of old turns for nothing (the soak in docs/reliability.md).
_CACHED_TEXTS = 256


def _fold(text: str) -> str:
    """Casefold, unify apostrophes and whitespace, cut to MAX_ANALYSED_CHARS."""
    folded = text[:MAX_ANALYSED_CHARS].casefold().replace("\u2019", "'").replace("`", "'")
    return _SPACES.sub(" ", folded).strip()


def _tokens(text: str) -> list[str]:
    return _WORD.findall(_fold(text).replace("'", ""))


def _stem(word: str) -> str:
    """Light plural stemming: worries -> worry, needs -> need; stress/focus/crisis kept."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("sses"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def normalise(text: str) -> frozenset[str]:
    """The content words of ``text``: what two claims must share to say the same thing."""
    return _normalise(text[:MAX_ANALYSED_CHARS])


@lru_cache(maxsize=_CACHED_TEXTS)
def _normalise(text: str) -> frozenset[str]:
    return frozenset(
        _stem(token)
        for token in _tokens(text)
        if token not in STOP_WORDS and token not in NEGATORS and not token.isdigit()
    )


def negated(text: str) -> bool:
    """Whether the text contains a negation ("not", "no", "don't", "never", "without"...)."""
    return _negated(text[:MAX_ANALYSED_CHARS])


@lru_cache(maxsize=_CACHED_TEXTS)
def _negated(text: str) -> bool:
    return any(token in NEGATORS for token in _tokens(text))


def canonical(text: str) -> str:
    """Casefolded words joined by single spaces: equal for verbatim repeats."""
    return " ".join(_tokens(text))


def similarity(a: str | AbstractSet[str], b: str | AbstractSet[str]) -> float:
    """Jaccard similarity of two texts' content words (or of two word sets); 0.0 if empty."""
    words_a = normalise(a) if isinstance(a, str) else a
    words_b = normalise(b) if isinstance(b, str) else b
    union = len(words_a | words_b)
    return len(words_a & words_b) / union if union else 0.0


# --- stance axes -------------------------------------------------------------------------
# Each axis has an "act" pole and a "restrain" pole. The restrain patterns are tried first:
# "don't give advice" also contains "give advice", and the negated reading is the right one.
_NEG = (
    r"(?:don'?t|do not|does not|doesn'?t|did not|didn'?t|never|avoid(?:ing)?|no|not|stop"
    r"|refrain from|hold off(?: on)?|without|shouldn'?t|should not|won'?t|better not)"
)
_GAP = r"(?:\s+[\w']+){0,3}?\s+"  # up to three words in between
_GAP4 = r"(?:\s+[\w']+){0,4}?\s+"  # up to four ("don't jump straight to giving advice")
_WHO = r"(?:them|the user|user|him|her)"

AXES: Final[tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], ...]] = (
    # (axis, act label, restrain label, act patterns, restrain patterns)
    (
        "advice",
        "advice",
        "no-advice",
        (
            r"\b(?:give|giving|offer|offering|provide|providing|share|suggest|suggesting"
            r"|propose|recommend)" + _GAP + r"(?:advice|solutions?|tips|fix(?:es)?|a plan|plans?"
            r"|(?:concrete |practical |next )?steps|strateg(?:y|ies)|options)\b",
            r"\b(?:fix|solve)\s+(?:it|this|that|the problem|the issue|their problem)\b",
            r"\bproblem[- ]solv(?:e|ing)\b",
            r"\b(?:make|build|draft|create) a plan\b",
            r"\b(?:next|concrete|practical|actionable) steps\b",
            r"\baction plan\b",
            r"\badvise " + _WHO + r"\b",
            r"\b(?:needs?|wants?|asked for|asks for|asking for|requests?)\s+(?:some\s+)?"
            r"(?:concrete\s+|practical\s+)?(?:advice|solutions?|a plan|tips|steps)\b",
        ),
        (
            r"\b"
            + _NEG
            + _GAP.replace("{0,3}", "{0,4}")
            + r"(?:advice|advis(?:e|es|ed|ing)|solutions?|solv(?:e|es|ed|ing)"
            r"|fix(?:es|ed|ing)?|tips|suggestions?|problem[- ]solving)\b",
            r"\b" + _NEG + r"\s+(?:advice|advis(?:e|es|ed|ing)|solutions?|fix(?:es|ed|ing)?)\b",
            r"\bjust listen(?:ing)?\b",
            r"\blisten (?:first|only)\b",
            r"\bonly listen\b",
            r"\b(?:unsolicited|premature) (?:advice|solutions?|fix(?:es)?)\b",
            r"\bhold off\b",
        ),
    ),
    (
        "push",
        "push",
        "give-space",
        (
            r"\bpush(?:es|ed|ing)?\b",
            r"\bencourag(?:e|es|ing) (?:them|the user|user|him|her|action|progress|effort)\b",
            r"\bchalleng(?:e|es|ing) (?:them|the user|user|him|her|their|this|that|the)\b",
            r"\bmotivat(?:e|es|ing) " + _WHO + r"\b",
            r"\bhold " + _WHO + r" accountable\b",
            r"\bnudge " + _WHO + r"\b",
        ),
        (
            r"\b" + _NEG + r"(?:\s+[\w']+){0,2}?\s+(?:push(?:es|ed|ing)?|pressur(?:e|es|ed|ing)"
            r"|rush(?:es|ed|ing)?|challeng(?:e|es|ed|ing)|nag(?:s|ged|ging)?)\b",
            r"\b(?:give|giving|allow|leave) (?:them |the user |him |her )?(?:some )?"
            r"(?:space|room)\b",
            r"\bback(?:ing)? off\b",
            r"\b(?:be|stay|go) (?:gentle|soft|patient)\b",
            r"\bgently\b",
            r"\bgo slow(?:ly)?\b",
            r"\btake it slow\b",
            r"\bno pressure\b",
        ),
    ),
    (
        "questions",
        "ask",
        "no-questions",
        (
            r"\bask(?:ing)?\b(?!\s+for\b)(?:\s+[\w']+){0,3}?\s+(?:questions?|what|why|how"
            r"|whether|if|about)\b",
            r"\bask " + _WHO + r"\b",
            r"\b(?:probe|probing|dig deeper|dig into|find out)\b",
        ),
        (
            r"\b" + _NEG + r"(?:\s+[\w']+){0,3}?\s+(?:ask(?:ing)?\b(?!\s+for\b)|questions?\b"
            r"|questioning\b|prob(?:e|es|ed|ing)\b|pry(?:ing)?\b|interrogat(?:e|es|ed|ing)\b)",
            r"\b(?:fewer|no more|too many) questions\b",
        ),
    ),
    (
        "reassurance",
        "reassure",
        "no-dismissing",
        (
            r"\breassur(?:e|es|ed|ing|ance)\b",
            r"\b(?:it'?s|it is|that'?s|that is) (?:ok|okay|fine|normal|alright|all right)\b",
            r"\bnothing to worry about\b",
            r"\b(?:no|not a) big deal\b",
            r"\bdon'?t worry\b",
            r"\bcheer " + _WHO + r" up\b",
            r"\b(?:look on the bright side|silver lining|stay positive|think positively?)\b",
        ),
        (
            r"\b" + _NEG + r"(?:\s+[\w']+){0,3}?\s+(?:dismiss(?:es|ed|ing)?|minimi[sz](?:e|es|ed"
            r"|ing)|downplay(?:s|ed|ing)?|invalidat(?:e|es|ed|ing)|brush(?:es|ed|ing)?)\b",
            r"\b(?:false|empty|hollow) (?:reassurance|hope|comfort)\b",
            r"\btoxic positivity\b",
        ),
    ),
)
_COMPILED: Final = tuple(
    (
        axis,
        act,
        restrain,
        re.compile("|".join(act_patterns)),
        re.compile("|".join(restrain_patterns)),
    )
    for axis, act, restrain, act_patterns, restrain_patterns in AXES
)


def stances(text: str) -> tuple[tuple[str, str], ...]:
    """The text's poles as (axis, pole) pairs: "Just listen" -> (("advice", "no-advice"),)."""
    return _stances(text[:MAX_ANALYSED_CHARS])


@lru_cache(maxsize=_CACHED_TEXTS)
def _stances(text: str) -> tuple[tuple[str, str], ...]:
    folded = _fold(text)
    found: list[tuple[str, str]] = []
    for axis, act, restrain, act_re, restrain_re in _COMPILED:
        if restrain_re.search(folded):
            found.append((axis, restrain))
        elif act_re.search(folded):
            found.append((axis, act))
    return tuple(found)


def stance_conflict(a: str, b: str) -> str | None:
    """'advice vs no-advice' when the two texts take opposite poles on an axis, else None."""
    poles_b = dict(stances(b))
    for axis, pole in stances(a):
        other = poles_b.get(axis)
        if other is not None and other != pole:
            return f"{pole} vs {other}"
    return None


def shared_stance(a: str, b: str) -> str | None:
    """The pole label both texts take ("no-advice"), if they agree on an axis."""
    poles_b = set(stances(b))
    for pair in stances(a):
        if pair in poles_b:
            return pair[1]
    return None


def negation_conflict(a: str, b: str) -> bool:
    """One text negates the other: opposite polarity, ≥ 2 shared content words and mostly
    the same words (similarity ≥ 0.6, or one's words contain the other's). The last
    condition keeps "user doesn't want advice" from opposing "user wants to talk": "user" is
    in almost every claim, so two shared words alone say little.
    """
    if negated(a) == negated(b):
        return False
    words_a, words_b = normalise(a), normalise(b)
    shared = len(words_a & words_b)
    if shared < 2:
        return False
    return (
        similarity(words_a, words_b) >= MERGE_SIMILARITY or words_a <= words_b or words_b <= words_a
    )


def opposition(a: str, b: str) -> str | None:
    """Why two texts oppose ("no-advice vs advice", "negation"), or None."""
    conflict = stance_conflict(a, b)
    if conflict is not None:
        return conflict
    return "negation" if negation_conflict(a, b) else None


# --- dedupe ------------------------------------------------------------------------------


def _same_claim(a: Claim, b: Claim) -> bool:
    """Symmetric merge test (see ``dedupe_claims``)."""
    if a.id == b.id:
        return True
    if a.type != b.type or opposition(a.text, b.text) is not None:
        return False
    if canonical(a.text) == canonical(b.text):
        return True
    words_a, words_b = normalise(a.text), normalise(b.text)
    if similarity(words_a, words_b) >= MERGE_SIMILARITY:
        return True
    small, large = (words_a, words_b) if len(words_a) <= len(words_b) else (words_b, words_a)
    return len(small) >= MIN_CONTAINED_WORDS and small <= large


def _strength(claim: Claim) -> int:
    return claim.urgency * claim.confidence


def _ordered_unique(ids: Iterable[str], drop: str) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for claim_id in ids:
        if claim_id != drop and claim_id not in seen:
            seen.add(claim_id)
            out.append(claim_id)
    return out


def _keep_first(keep: Claim, group: Sequence[Claim]) -> list[Claim]:
    return [keep, *(member for member in group if member is not keep)]


def _merge_pass(claims: Sequence[Claim]) -> tuple[list[Claim], dict[str, str]]:
    """One greedy pass: each claim joins the first earlier group it matches."""
    groups: list[list[Claim]] = []
    for claim in claims:
        for group in groups:
            if any(_same_claim(member, claim) for member in group):
                group.append(claim)
                break
        else:
            groups.append([claim])
    merged: list[Claim] = []
    renamed: dict[str, str] = {}
    for group in groups:
        # strongest wins; on a tie the earliest (max keeps the first maximum)
        keep = max(group, key=_strength)
        for member in group:
            if member.id != keep.id:
                renamed[member.id] = keep.id
        merged.append(
            keep.model_copy(
                update={
                    "supports": [i for m in _keep_first(keep, group) for i in m.supports],
                    "opposes": [i for m in _keep_first(keep, group) for i in m.opposes],
                }
            )
        )
    return merged, renamed


def _relink(claims: Sequence[Claim], renamed: dict[str, str]) -> list[Claim]:
    """Point edges at the surviving ids; drop self-links and repeated ids."""
    out: list[Claim] = []
    for claim in claims:
        supports = _ordered_unique((renamed.get(i, i) for i in claim.supports), claim.id)
        opposes = _ordered_unique((renamed.get(i, i) for i in claim.opposes), claim.id)
        if supports != claim.supports or opposes != claim.opposes:
            claim = claim.model_copy(update={"supports": supports, "opposes": opposes})
        out.append(claim)
    return out


def dedupe_claims(claims: Iterable[Claim]) -> list[Claim]:
    """Merge repeated claims; stable order; idempotent.

    Two claims are the same claim when they have the same id (a resend), or when they have
    the same type, do not oppose each other (``opposition``) and either read the same
    (``canonical``), have content-word similarity ≥ 0.6, or one's content words (≥ 2 of
    them) are all in the other's. A group keeps its strongest member (urgency × confidence,
    then the earliest) at the position of its first member, with the union of the group's
    ``supports``/``opposes``; links to merged-away ids are pointed at the survivor.
    Passes repeat until nothing merges, so the result has no mergeable pair left.
    """
    current = list(claims)
    renamed_total: dict[str, str] = {}
    while True:
        merged, renamed = _merge_pass(current)
        for old, new in renamed_total.items():
            renamed_total[old] = renamed.get(new, new)
        renamed_total.update(renamed)
        settled = len(merged) == len(current)
        current = merged
        if settled:
            return _relink(current, renamed_total)
