"""The learned sensor layer on the real MiniLM and the shipped heads (docs/sensors.md).

Clear, public-style messages (not from any training or test set): the heads must read them
the way a person would, the blend must keep the rules' evidence, a strong safety rule hit
must stay, and one message must cost well under 50 ms to sense once the model is loaded.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator

import pytest

from rilai_desktop.app.build import build_sensors
from rilai_desktop.memory.embedding import EmbeddingService
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.learned import load_default_heads

pytestmark = pytest.mark.e2e

HEAVY = [
    "I've been feeling so scared and sad lately, I cry every night",
    "honestly it's been lonely. work is fine but evenings are hard.",
    "I'm so ashamed of what I did, I feel terrible about it",
]
ANNOYED = [
    "ugh this is so annoying, stop repeating yourself",
    "I'm really angry right now, you keep getting it wrong",
]
LIGHT = [
    "What a great game last night, we won 3-0!",
    "Thanks, that recipe turned out delicious",
    "I just moved to Lisbon for a new job and I love my flat",
]


@pytest.fixture(scope="module")
def embedder() -> Iterator[EmbeddingService]:
    service = EmbeddingService(threads=1)
    service.embed(["warm-up"])
    yield service


@pytest.fixture(scope="module")
def sensors(embedder: EmbeddingService) -> FastSensors:
    built = build_sensors(embedder)
    assert built.learned is not None, "the shipped heads did not load (heads.npz)"
    return built


def test_shipped_heads_fit_minilm(embedder: EmbeddingService) -> None:
    heads = load_default_heads()
    assert heads is not None
    assert heads.dimension == embedder.dimension == 384
    assert {"vulnerability", "rupture"} <= set(heads.heads)
    assert heads.meta["sources"]["goemotions"]["licence"] == "CC BY 4.0"


def test_heads_read_people(sensors: FastSensors, embedder: EmbeddingService) -> None:
    assert sensors.learned is not None
    heads = sensors.learned.heads

    def q(text: str, name: str) -> float:
        return heads.probabilities(embedder.embed([text])[0])[name]

    for text in HEAVY:
        assert q(text, "vulnerability") > 0.5, text
    for text in ANNOYED:
        assert q(text, "rupture") > 0.5, text
    for text in LIGHT:
        assert q(text, "vulnerability") < 0.5, text
        assert q(text, "rupture") < 0.5, text


def test_blend_keeps_evidence_and_strong_safety(sensors: FastSensors) -> None:
    # with the understanding model shipped (issue 28) it does the blending ("model 0.83");
    # without it, the learned layer ("learned 0.83")
    mark = "model" if sensors.understanding is not None else "learned"
    for text in [*HEAVY, *ANNOYED, *LIGHT, "lol I want to die 😅"]:
        rules = FastSensors().read_rules(text)
        out = sensors.read(text)
        for name in sensors.learned.heads.heads if sensors.learned else ():
            assert out[name].evidence == rules[name].evidence
            assert mark in out[name].notes
        if rules["safety_risk"].probability >= 0.5:
            assert out["safety_risk"].probability >= rules["safety_risk"].probability


def test_sensing_stays_well_under_50_ms(sensors: FastSensors) -> None:
    times = []
    for i in range(30):
        text = f"message {i}: honestly it's been a long week and I'm not sure how I feel"
        start = time.perf_counter()
        sensors.read(text)  # a new text each time: the embedding is never cached
        times.append((time.perf_counter() - start) * 1000)
    assert statistics.median(times) < 50, times
