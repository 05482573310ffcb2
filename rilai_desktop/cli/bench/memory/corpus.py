"""The benchmark's synthetic data: memory-item sentences, questions and user turns from
templates with a varied vocabulary (so FTS5 has real work), and clustered unit vectors
standing in for their embeddings (embedding 100K real sentences would take many minutes).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from rilai_desktop.memory.types import Turn

CLUSTERS = 200
SPREAD = 1.0  # noise norm around a cluster centre (unit): within-cluster cosine ≈ 0.5
QUERY_NOISE = 0.3  # noise norm of the ANN queries around a data point


def _list(words: str) -> list[str]:
    return words.split("|")


NAMES = _list(
    "Maya|Leo|Ana|Tom|Priya|Omar|Lena|Jonas|Sofia|Ravi|Chloe|Mateo|Yuki|Amara|Felix|Nora|"
    "Ivan|Zara|Hugo|Elif|Kai|Mira|Otto|Ines|Theo|Lila|Sami|Greta|Pablo|Noor|Aiko|Bram|Celia|"
    "Dario|Esme|Farid|Gwen|Hamid|Ilse|Jorge|Kenji|Lucia|Marek|Nadia|Oskar|Paula|Quentin|"
    "Rosa|Stefan|Tara|Umar|Vera|Wim|Xenia|Yara|Zeno"
)
_PLACES = _list(
    "Lisbon|Kyoto|Oslo|Berlin|Nairobi|Lima|Hanoi|Porto|Krakow|Dublin|Seville|Montreal|"
    "Tbilisi|Valencia|Bergen|Zurich|Naples|Tallinn|Ghent|Lyon|Cusco|Hobart|Split|Riga|"
    "Bruges|Granada|Salzburg|Malmo|Cork|Bologna|Marrakesh|Ljubljana|Antwerp|Gdansk|Trieste|"
    "Galway|Utrecht|Lucerne|Bilbao|Dresden|Aarhus|Leeds|Turin|Vilnius|Plovdiv|Sapporo|"
    "Oaxaca|Quito"
)
_ACTIVITIES = _list(
    "hiking|bouldering|swimming in cold lakes|baking sourdough|knitting scarves|"
    "trail running|playing the cello|painting watercolours|birdwatching|cycling to work|"
    "gardening|street photography|kayaking|playing chess|morning yoga|throwing pottery|"
    "woodworking|salsa dancing|journaling|wild camping|surfing|cross-country skiing|"
    "reading poetry|cooking curry|fly fishing|folding origami|board games|"
    "singing in a choir|volunteering at the shelter|stargazing|learning Portuguese|"
    "restoring old bikes|foraging mushrooms|writing short stories|sketching buildings"
)
_RELATIONS = _list(
    "sister|brother|mother|father|best friend|cousin|aunt|uncle|roommate|boss|therapist|"
    "grandmother|partner|neighbour|coworker"
)
_EVENTS = _list(
    "dentist appointment|job interview|chemistry exam|flight|doctor appointment|"
    "team presentation|driving exam|visa interview|knee surgery|piano exam"
)
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = _list("January|February|March|April|June|July|August|September|October|November|December")
_TOPICS = _list(
    "the garden project|climate policy|the rent increase|our wedding plans|"
    "the new manager|quantum computing|the school reunion|medieval history|"
    "the budget spreadsheet|jazz records|the housing market|vintage synthesizers|"
    "the hospital night shifts|sourdough starters|marathon training|"
    "the neighbourhood festival|language exchange|the broken dishwasher|tax returns|"
    "the family reunion|electric cars|ancient Rome|the thesis draft|minimalist living|"
    "the bike commute|film photography|the charity auction|mental health at work|"
    "the book club pick|moving abroad"
)
_FOODS = _list("peanuts|shellfish|gluten|strawberries|kiwi|sesame|cashews|eggs|soy|mustard")
_FOOD_LIKES = _list(
    "spicy ramen|lemon tart|dark chocolate|pickled herring|mango sticky rice|"
    "black coffee|goat cheese|falafel wraps|mushroom risotto|green tea|pho|tapas"
)
_JOBS = _list(
    "nurse|teacher|developer|engineer|designer|librarian|paramedic|architect|translator|"
    "electrician|barista|accountant"
)
_ORGS = ["hospital", "school", "startup", "bakery", "museum", "library", "studio", "clinic"]
_HABITS = _list(
    "drinking coffee after noon|doomscrolling at night|skipping breakfast|smoking|"
    "working weekends|eating sugar|buying fast fashion|checking email in bed"
)
_FEELINGS = ["stressed", "anxious", "excited", "exhausted", "proud", "worried", "grateful"]
_ADJS = ["rough", "great", "long", "weird", "productive", "exhausting", "lovely", "stressful"]
_SPOTS = _list(
    "the night market|a tiny bookshop|the old harbour|the botanical garden|a rooftop bar|"
    "the flea market|the climbing gym|a jazz cellar|the train station|the lake shore"
)


def _pick(rng: random.Random, seq: Sequence[str]) -> str:
    return seq[rng.randrange(len(seq))]


def item_text(rng: random.Random) -> tuple[str, str]:
    """One memory-item sentence and its kind (the kinds the extractor produces)."""
    r = rng.randrange(12)
    name, place, act = _pick(rng, NAMES), _pick(rng, _PLACES), _pick(rng, _ACTIVITIES)
    if r == 0:
        return f"I love {act} in {place}, especially with {name}.", "preference"
    if r == 1:
        return f"My {_pick(rng, _RELATIONS)} {name} lives in {place}.", "biography"
    if r == 2:
        day = _pick(rng, _DAYS)
        return (
            f"I have a {_pick(rng, _EVENTS)} on {day} at {rng.randint(7, 11)} am in {place}.",
            "commitment",
        )
    if r == 3:
        return f"I work as a {_pick(rng, _JOBS)} at a {_pick(rng, _ORGS)} in {place}.", "biography"
    if r == 4:
        return (
            f"I had a {_pick(rng, _ADJS)} day at {_pick(rng, _SPOTS)} with {name}, we talked "
            f"about {_pick(rng, _TOPICS)}.",
            "event",
        )
    if r == 5:
        return f"I'm allergic to {_pick(rng, _FOODS)} and {name} keeps forgetting it.", "biography"
    if r == 6:
        return f"I've decided to stop {_pick(rng, _HABITS)} from {_pick(rng, _MONTHS)}.", "decision"
    if r == 7:
        return (
            f"I'm training for a half marathon in {place} in {_pick(rng, _MONTHS)}, "
            f"{act} on rest days.",
            "goal",
        )
    if r == 8:
        return f"Being honest with {name} about {_pick(rng, _TOPICS)} matters to me.", "value"
    if r == 9:
        return (
            f"I'm so {_pick(rng, _FEELINGS)} about {_pick(rng, _TOPICS)} since {name} "
            f"mentioned it in {place}.",
            "event",
        )
    if r == 10:
        return f"My favourite food is {_pick(rng, _FOOD_LIKES)} from {place}.", "preference"
    return (
        f"{name} recommended {act} and a book about {_pick(rng, _TOPICS)} when we met at "
        f"{_pick(rng, _SPOTS)}.",
        "utterance",
    )


def synthetic_items(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [item_text(rng) for _ in range(n)]


def _query_text(rng: random.Random) -> str:
    r = rng.randrange(10)
    name, place = _pick(rng, NAMES), _pick(rng, _PLACES)
    if r == 0:
        return f"What do I enjoy doing in {place}?"
    if r == 1:
        return f"Where does my {_pick(rng, _RELATIONS)} {name} live?"
    if r == 2:
        return f"When is my {_pick(rng, _EVENTS)} in {place}?"
    if r == 3:
        return f"What did {name} say about {_pick(rng, _TOPICS)}?"
    if r == 4:
        return f"Am I allergic to {_pick(rng, _FOODS)} or {_pick(rng, _FOODS)}?"
    if r == 5:
        return f"How do I feel about {_pick(rng, _ACTIVITIES)} with {name}?"
    if r == 6:
        return f"Which job did I have in {place}?"
    if r == 7:
        return f"What happened at {_pick(rng, _SPOTS)} with {name}?"
    if r == 8:
        return f"Did I decide to stop {_pick(rng, _HABITS)}?"
    return f"Who recommended {_pick(rng, _ACTIVITIES)} to me in {place}?"


def synthetic_queries(n: int, seed: int = 1) -> list[str]:
    """``n`` distinct short questions (distinct, so our embedding cache never answers)."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen.setdefault(_query_text(rng), None)
    return list(seen)


def _turn_text(rng: random.Random) -> str:
    """A first-person user turn; most are recognised by the rule extractor."""
    r = rng.randrange(14)
    name, place, act = _pick(rng, NAMES), _pick(rng, _PLACES), _pick(rng, _ACTIVITIES)
    day, month, topic = _pick(rng, _DAYS), _pick(rng, _MONTHS), _pick(rng, _TOPICS)
    if r == 0:
        return f"I love {act} in {place}."
    if r == 1:
        return f"I really enjoy {act} with my {_pick(rng, _RELATIONS)} on {day}s."
    if r == 2:
        return f"My {_pick(rng, _RELATIONS)} {name} lives in {place} and we talk every {day}."
    if r == 3:
        return f"I have a {_pick(rng, _EVENTS)} on {day} at {rng.randint(7, 11)} am."
    if r == 4:
        return f"I've decided to stop {_pick(rng, _HABITS)} from {month}."
    if r == 5:
        return f"I'm training for a half marathon in {place} this {month}."
    if r == 6:
        return f"I'm allergic to {_pick(rng, _FOODS)}, so please remember that {name}."
    if r == 7:
        return f"Being honest with {name} about {topic} matters a lot to me."
    if r == 8:
        return f"I had a {_pick(rng, _ADJS)} day at {_pick(rng, _SPOTS)} with {name}."
    if r == 9:
        return f"I'm so {_pick(rng, _FEELINGS)} about {topic} since {name} brought it up."
    if r == 10:
        return f"I work as a {_pick(rng, _JOBS)} at a {_pick(rng, _ORGS)} in {place}."
    if r == 11:
        return f"My favourite food is {_pick(rng, _FOOD_LIKES)} from a stall in {place}."
    if r == 12:  # no rule: a substantive utterance
        return (
            f"We spent the afternoon at {_pick(rng, _SPOTS)} in {place} with {name} talking "
            f"about {topic}."
        )
    return f"ok, talk {day} {name}"  # filler: no draft


def synthetic_turns(n: int, seed: int = 2) -> list[Turn]:
    """``n`` distinct user turns."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen.setdefault(_turn_text(rng), None)
    return [Turn(id=f"bench-t{i}", speaker="user", text=t) for i, t in enumerate(seen)]


def clustered_vectors(
    n: int, dim: int, *, clusters: int = CLUSTERS, seed: int = 0, chunk: int = 100_000
) -> np.ndarray[Any, np.dtype[np.float32]]:
    """``n`` unit vectors around ``clusters`` random centres (sizes log-normal)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    weights = rng.lognormal(0.0, 1.0, clusters)
    weights /= weights.sum()
    out = np.empty((n, dim), dtype=np.float32)
    scale = np.float32(SPREAD / math.sqrt(dim))
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        labels = rng.choice(clusters, size=m, p=weights)
        block = centres[labels] + rng.standard_normal((m, dim), dtype=np.float32) * scale
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + m] = block
    return out


def near_queries(
    vectors: np.ndarray[Any, np.dtype[np.float32]], n: int, seed: int = 3
) -> np.ndarray[Any, np.dtype[np.float32]]:
    """``n`` queries near the data: perturbed data points, normalised."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(vectors), size=min(n, len(vectors)), replace=False)
    dim = vectors.shape[1]
    q = vectors[rows] + rng.standard_normal((len(rows), dim), dtype=np.float32) * np.float32(
        QUERY_NOISE / math.sqrt(dim)
    )
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.ascontiguousarray(q, dtype=np.float32)
