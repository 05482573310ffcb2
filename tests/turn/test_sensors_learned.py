"""The learned sensor layer: heads files, scoring, the blend, and FastSensors with and without it.

A deterministic fake embedder (keyword -> axis) and small synthetic heads stand in for MiniLM
and the shipped heads (tests/e2e/test_sensors_learned_real.py runs the real ones).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from rilai_desktop.contracts.sensor import SENSOR_NAMES
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.learned import (
    DECISION_FLOOR,
    STRONG_RULE,
    Head,
    HeadsError,
    LearnedLayer,
    SensorHeads,
    blend,
    load_heads,
    save_heads,
)

AXES = ("tired", "lonely", "whatever", "cake")


def fake_embed(text: str) -> np.ndarray:
    """Axis i is 1 when AXES[i] is in the text, plus a constant axis; L2-normalised."""
    folded = text.lower()
    vec = np.array([1.0 if word in folded else 0.0 for word in AXES] + [1.0])
    return vec / np.linalg.norm(vec)


def heads(beta: float = 0.5) -> SensorHeads:
    """safety_risk fires on 'tired', vulnerability on 'lonely', rupture on 'whatever'."""
    dim = len(AXES) + 1

    def head(name: str, axis: int, bias: float = -4.0) -> Head:
        w = np.zeros(dim)
        w[axis] = 12.0
        return Head(name, w, bias, beta)

    return SensorHeads(
        dim,
        {
            "safety_risk": head("safety_risk", 0),
            "vulnerability": head("vulnerability", 1),
            "rupture": head("rupture", 2),
        },
        {"sources": {"synthetic": {"licence": "test"}}},
    )


def layered(beta: float = 0.5) -> FastSensors:
    return FastSensors(learned=LearnedLayer(fake_embed, heads(beta)))


def test_heads_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "heads.npz"
    original = heads(0.3)
    save_heads(path, original)
    loaded = load_heads(path)
    assert loaded.dimension == original.dimension
    assert list(loaded.heads) == list(original.heads)
    assert loaded.meta == original.meta
    vec = fake_embed("so tired and lonely")
    for name, head in original.heads.items():
        assert loaded.heads[name].beta == pytest.approx(0.3)
        assert loaded.heads[name].probability(vec) == pytest.approx(head.probability(vec), 1e-5)


def test_head_probability_is_a_logistic() -> None:
    head = Head("vulnerability", np.array([2.0, -1.0]), 0.5, 0.5)
    vec = np.array([0.3, 0.4])
    assert head.probability(vec) == pytest.approx(1 / (1 + math.exp(-(0.6 - 0.4 + 0.5))))
    extreme = Head("vulnerability", np.array([1e6]), 0.0, 0.5)
    assert extreme.probability(np.array([-1.0])) == pytest.approx(0.0)
    assert extreme.probability(np.array([1.0])) == pytest.approx(1.0)


def test_malformed_heads_files_are_refused(tmp_path: Path) -> None:
    missing = tmp_path / "missing.npz"
    np.savez(missing, sensors=np.array(["rupture"]))
    with pytest.raises(HeadsError):
        load_heads(missing)
    bad_beta = tmp_path / "beta.npz"
    np.savez(
        bad_beta,
        sensors=np.array(["rupture"]),
        weights=np.zeros((1, 3)),
        bias=np.zeros(1),
        beta=np.array([1.5]),
    )
    with pytest.raises(HeadsError, match="beta"):
        load_heads(bad_beta)
    unknown = tmp_path / "unknown.npz"
    np.savez(
        unknown,
        sensors=np.array(["mood"]),
        weights=np.zeros((1, 3)),
        bias=np.zeros(1),
        beta=np.array([0.5]),
    )
    with pytest.raises(HeadsError, match="unknown"):
        load_heads(unknown)
    with pytest.raises(HeadsError):
        heads().probabilities([0.1, 0.2])  # wrong dimension


def test_blend_never_lowers_a_strong_safety_rule() -> None:
    for rule in (STRONG_RULE, 0.7, 0.9, 1.0):
        for learned in (0.0, 0.2, 0.5, 1.0):
            for beta in (0.0, 0.5, 1.0):
                assert blend("safety_risk", rule, learned, beta) >= rule
    # where the rules are unsure the learned head may lower or raise it
    assert blend("safety_risk", 0.3, 0.0, 0.5) == pytest.approx(0.15)
    assert blend("safety_risk", 0.1, 1.0, 0.5) == pytest.approx(0.55)
    # other sensors: the plain blend, both ways, but a rule hit stays a hit
    assert blend("vulnerability", 0.9, 0.0, 0.5) == pytest.approx(DECISION_FLOOR)
    assert blend("vulnerability", 0.9, 0.2, 0.5) == pytest.approx(0.55)
    assert blend("vulnerability", 0.4, 0.0, 0.5) == pytest.approx(0.2)
    assert blend("rupture", 0.0, 1.0, 0.25) == pytest.approx(0.25)
    assert blend("rupture", 0.0, 1.0, 0.75) == pytest.approx(0.75)


def test_without_a_learned_layer_the_rules_are_unchanged() -> None:
    for text in ("I want to die", "I'm so tired of everything", "are you real?", ""):
        assert FastSensors().read(text) == FastSensors().read_rules(text)


def test_learned_layer_raises_what_the_rules_miss_and_keeps_evidence() -> None:
    text = "I'm just so tired of everything."
    rules = FastSensors().read_rules(text)
    out = layered().read(text)
    assert set(out) == set(SENSOR_NAMES)
    assert out["safety_risk"].probability > rules["safety_risk"].probability
    assert out["safety_risk"].probability >= 0.49
    assert "learned 0.9" in out["safety_risk"].notes
    assert out["safety_risk"].evidence == rules["safety_risk"].evidence
    # sensors without a head are the rules' readings, untouched
    for name in ("advice_requested", "ambiguity", "prompt_injection", "humor_masking"):
        assert out[name] == rules[name]


def test_learned_layer_never_lowers_a_strong_safety_hit() -> None:
    text = "lol I want to die 😅"  # no 'tired': the fake head reads ~0 here
    rules = FastSensors().read_rules(text)
    assert rules["safety_risk"].probability >= STRONG_RULE
    out = layered(beta=1.0).read(text)
    assert out["safety_risk"].probability == rules["safety_risk"].probability
    assert out["safety_risk"].evidence == rules["safety_risk"].evidence
    assert "learned 0.02" in out["safety_risk"].notes


def test_learned_layer_can_lower_other_sensors() -> None:
    text = "I feel so alone and sad tonight"
    rules = FastSensors().read_rules(text)
    out = layered(beta=0.5).read(text)
    assert rules["vulnerability"].probability > DECISION_FLOOR
    assert DECISION_FLOOR <= out["vulnerability"].probability < rules["vulnerability"].probability
    assert out["vulnerability"].evidence == rules["vulnerability"].evidence
    unsure = "i guess i'm a bit down"  # a weak rule reading may go down to the head's
    weak = FastSensors().read_rules(unsure)["vulnerability"].probability
    if 0 < weak < DECISION_FLOOR:
        assert layered(beta=0.5).read(unsure)["vulnerability"].probability < weak


def test_a_failing_embedder_leaves_the_rules(caplog: pytest.LogCaptureFixture) -> None:
    def broken(text: str) -> np.ndarray:
        raise RuntimeError("model gone")

    def wrong_size(text: str) -> np.ndarray:
        return np.ones(7)

    text = "I'm just so tired of everything."
    rules = FastSensors().read_rules(text)
    for embed in (broken, wrong_size):
        sensors = FastSensors(learned=LearnedLayer(embed, heads()))
        assert sensors.read(text) == rules
    assert "learned sensor layer skipped" in caplog.text


def test_blank_input_is_not_embedded() -> None:
    calls: list[str] = []

    def counting(text: str) -> np.ndarray:
        calls.append(text)
        return fake_embed(text)

    sensors = FastSensors(learned=LearnedLayer(counting, heads()))
    for text in ("", "   ", "\u200b\u200b"):
        out = sensors.read(text)
        assert out["safety_risk"].probability == 0.0
    assert calls == []
    sensors.read("tired " * 5000)
    assert len(calls) == 1 and len(calls[0]) == 2000  # cut like memory recall cuts it


def test_notes_stay_within_the_contract() -> None:
    long_note = FastSensors().read_rules("lol I want to die 😅 haha jk 💀 I'm so tired")
    out = layered().read("lol I want to die 😅 haha jk 💀 I'm so tired")
    for name in SENSOR_NAMES:
        assert len(out[name].notes) <= 100
        if name in ("safety_risk", "vulnerability", "rupture"):
            assert "learned" in out[name].notes
        else:
            assert out[name].notes == long_note[name].notes


def test_composition_root_wires_the_layer_only_when_the_embedder_fits() -> None:
    from rilai_desktop.app.build import build_sensors
    from rilai_desktop.memory.embedding import HashEmbedder

    assert build_sensors(None).learned is None
    assert build_sensors(HashEmbedder(dimension=256)).learned is None  # hash backend
    fitting = HashEmbedder(dimension=384)  # the shipped heads' dimension (MiniLM's)
    sensors = build_sensors(fitting)
    assert sensors.learned is not None
    out = sensors.read("I feel so alone tonight")
    assert "learned" in out["vulnerability"].notes
    assert fitting.encoded_texts == 1
    sensors.read("I feel so alone tonight")
    assert fitting.encoded_texts == 1  # the embedder's cache: embedded once
