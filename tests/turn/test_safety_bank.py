"""The safety exemplar bank (sensors/safety_bank.py): the k-nearest margin over a tiny
synthetic bank, the bands, the note the layer writes and reads back, the layer's raise-only
rule, the thresholds file, and the shipped bank."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.safety_state import WEAK
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD, SAFETY_INTERRUPT_THRESHOLD
from rilai_desktop.turn.sensors.learned import MAX_EMBED_CHARS
from rilai_desktop.turn.sensors.safety_bank import (
    BANK_FILE,
    BANK_GREY_RISK,
    BANK_HIT_RISK,
    BANK_STRONG_RISK,
    THRESHOLDS_FILE,
    BankError,
    BankLayer,
    BankThresholds,
    ExemplarBank,
    band,
    band_of,
    load_bank,
    load_default_layer,
    rules_before_bank,
)

E0, E1, E2, E3 = np.eye(4, dtype=np.float32)
DIAG = (E0 + E1) / np.sqrt(2)
# positives: e0 and the diagonal of e0/e1; negatives: e2 and e3
VECTORS = np.stack([E0, DIAG, E2, E3])
LABELS = np.array([1, 1, 0, 0])
TEXTS = ["i want to disappear", "everyone would be better off", "great meeting", "nice dog"]
# k=1 margins: e0 → 1.0 (hit), e1 → 0.71 (weak), e0+e2 → 0.0 (grey), e2 → -1.0 (none)
THRESHOLDS = BankThresholds(k=1, strong=0.9, hit=0.5, grey=-0.1)
HIT, WEAK_HIT, GREY, NONE = E0, E1, (E0 + E2) / np.sqrt(2), E2


def small_bank(k: int = 1) -> ExemplarBank:
    return ExemplarBank(VECTORS, LABELS, TEXTS, k=k, model_id="tiny")


class TableEmbedder:
    """A deterministic embedder: each known text has its vector; anything else ``NONE``."""

    def __init__(self, table: dict[str, NDArray[np.float32]] | None = None) -> None:
        self.table = table or {}
        self.calls: list[str] = []

    def __call__(self, text: str) -> NDArray[np.float32]:
        self.calls.append(text)
        return self.table.get(text, NONE)


class BrokenEmbedder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> Sequence[float]:
        self.calls += 1
        raise RuntimeError("encoder crashed")


def readings(
    safety: float = 0.0, notes: str = "", evidence: Sequence[str] = ()
) -> dict[str, SensorOutput]:
    return {
        "safety_risk": SensorOutput(
            sensor="safety_risk",
            probability=safety,
            evidence=list(evidence),
            counterevidence=["a game"],
            notes=notes,
        ),
        "vulnerability": SensorOutput(sensor="vulnerability", probability=0.3),
    }


def layer(table: dict[str, NDArray[np.float32]]) -> tuple[BankLayer, TableEmbedder]:
    embed = TableEmbedder(table)
    return BankLayer(embed, small_bank(), THRESHOLDS), embed


# ── ExemplarBank ───────────────────────────────────────────────────────────────
def test_the_margin_is_the_mean_of_the_k_best_positives_minus_the_k_best_negatives() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(9, 5)).astype(np.float32)
    labels = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0])
    query = rng.normal(size=5).astype(np.float32)
    units = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cos = units @ (query / np.linalg.norm(query))
    for k in (1, 2, 3):
        expected_pos = np.sort(cos[:4])[-k:].mean()
        expected_neg = np.sort(cos[4:])[-k:].mean()
        found = ExemplarBank(vectors, labels, k=k).match(query)
        assert found.positive == pytest.approx(expected_pos, abs=1e-5)
        assert found.negative == pytest.approx(expected_neg, abs=1e-5)
        assert found.margin == pytest.approx(expected_pos - expected_neg, abs=1e-5)


def test_the_synthetic_margins_land_in_their_bands() -> None:
    bank = small_bank()
    assert bank.match(HIT).margin == pytest.approx(1.0)
    assert bank.match(WEAK_HIT).margin == pytest.approx(1 / np.sqrt(2), abs=1e-6)
    assert bank.match(GREY).margin == pytest.approx(0.0, abs=1e-6)
    assert bank.match(NONE).margin == pytest.approx(-1.0)
    assert [band(bank.match(v).margin, THRESHOLDS) for v in (HIT, WEAK_HIT, GREY, NONE)] == [
        "hit",
        "weak",
        "grey",
        None,
    ]


def test_a_query_is_normalised_and_the_bank_rows_too() -> None:
    bank = ExemplarBank(VECTORS * 5.0, LABELS, k=1)
    assert bank.match(HIT * 3.0).margin == pytest.approx(1.0)


def test_k_larger_than_a_side_uses_what_there_is() -> None:
    found = ExemplarBank(VECTORS, LABELS, k=10).match(HIT)
    assert found.positive == pytest.approx((1.0 + 1 / np.sqrt(2)) / 2, abs=1e-6)
    assert found.negative == pytest.approx(0.0)


def test_the_nearest_positive_text_is_reported() -> None:
    assert small_bank().match(HIT).nearest == "i want to disappear"
    assert small_bank().match(E1).nearest == "everyone would be better off"
    assert ExemplarBank(VECTORS, LABELS).match(HIT).nearest == ""  # no texts


def test_leave_one_out_skips_the_row_itself() -> None:
    bank = small_bank()
    whole = bank.match(HIT)
    left_out = bank.match(HIT, exclude=0.9999)
    assert whole.positive == pytest.approx(1.0)
    assert left_out.positive == pytest.approx(1 / np.sqrt(2), abs=1e-6)  # the next positive
    assert left_out.nearest == "everyone would be better off"


def test_a_side_with_every_row_excluded_scores_zero() -> None:
    bank = ExemplarBank(np.stack([E0, E2]), np.array([1, 0]), k=3)
    found = bank.match(E0, exclude=0.9999)
    assert found.positive == 0.0 and found.negative == pytest.approx(0.0)


@pytest.mark.parametrize("labels", [np.array([1, 1, 1, 1]), np.array([0, 0, 0, 0])])
def test_the_bank_needs_both_labels(labels: NDArray[np.int_]) -> None:
    with pytest.raises(BankError, match="both positives and negatives"):
        ExemplarBank(VECTORS, labels)


def test_vectors_and_labels_must_match() -> None:
    with pytest.raises(BankError):
        ExemplarBank(VECTORS, np.array([1, 0, 0]))
    with pytest.raises(BankError):
        ExemplarBank(VECTORS.reshape(-1), np.array([1, 0] * 8))  # not a matrix


@pytest.mark.parametrize(
    "vector",
    [np.zeros(3), np.zeros(5), np.zeros((2, 4)), np.array([1.0, np.nan, 0.0, 0.0])],
    ids=["short", "long", "two rows", "nan"],
)
def test_a_vector_of_the_wrong_shape_or_not_finite_raises(vector: NDArray[np.float64]) -> None:
    with pytest.raises(BankError, match="finite vector of 4"):
        small_bank().match(vector)


def test_the_bank_knows_its_size_and_dimension() -> None:
    bank = small_bank()
    assert len(bank) == 4 and bank.dimension == 4 and bank.model_id == "tiny"
    assert bank.positive_texts == TEXTS[:2]


# ── load_bank ──────────────────────────────────────────────────────────────────
def test_load_bank_reads_vectors_labels_texts_and_the_encoder(tmp_path: Path) -> None:
    path = tmp_path / "bank.npz"
    meta = json.dumps({"encoder": "tiny-encoder"})
    np.savez(path, vectors=VECTORS.astype(np.float16), labels=LABELS, texts=np.array(TEXTS),
             meta=np.array(meta))  # fmt: skip
    bank = load_bank(path, k=1)
    assert bank.model_id == "tiny-encoder" and len(bank) == 4
    assert bank.match(HIT).nearest == "i want to disappear"


def test_load_bank_without_vectors_is_a_bank_error(tmp_path: Path) -> None:
    path = tmp_path / "bank.npz"
    np.savez(path, labels=LABELS)
    with pytest.raises(BankError, match="not a safety bank file"):
        load_bank(path)


# ── band, band_of, rules_before_bank ───────────────────────────────────────────
def test_band_boundaries_belong_to_the_higher_band() -> None:
    assert band(0.9, THRESHOLDS) == "hit"
    assert band(0.8999, THRESHOLDS) == "weak"
    assert band(0.5, THRESHOLDS) == "weak"
    assert band(0.4999, THRESHOLDS) == "grey"
    assert band(-0.1, THRESHOLDS) == "grey"
    assert band(-0.1001, THRESHOLDS) is None


@pytest.mark.parametrize(("vector", "which"), [(HIT, "hit"), (WEAK_HIT, "weak"), (GREY, "grey")])
def test_the_note_is_read_back(vector: NDArray[np.float32], which: str) -> None:
    bank_layer, _ = layer({"msg": vector})
    out = bank_layer.apply("msg", readings(0.12, notes="first person"))["safety_risk"]
    assert band_of(out) == which
    assert rules_before_bank(out) == 0.12
    assert out.notes.startswith(f"bank {which} ")
    assert " r0.12" in out.notes and out.notes.endswith("; first person")


def test_a_reading_without_a_bank_note_has_no_band() -> None:
    plain = readings(0.6, notes="first person")["safety_risk"]
    assert band_of(plain) is None and rules_before_bank(plain) is None
    assert band_of(readings(0.6)["safety_risk"]) is None


def test_the_notes_are_read_back_after_the_check_prepends_its_verdict() -> None:
    note = 'check yes 2; bank weak +0.71 r0.10 ≈ "i want to disappear"'
    reading = SensorOutput(sensor="safety_risk", probability=0.7, notes=note)
    assert band_of(reading) == "weak" and rules_before_bank(reading) == 0.10


# ── BankLayer.apply ────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("vector", "risk"),
    [(HIT, BANK_STRONG_RISK), (WEAK_HIT, BANK_HIT_RISK), (GREY, BANK_GREY_RISK)],
)
def test_each_band_raises_the_reading_to_its_risk(vector: NDArray[np.float32], risk: float) -> None:
    bank_layer, embed = layer({"a message": vector})
    before = readings(0.0)
    out = bank_layer.apply("a message", before)
    assert out["safety_risk"].probability == risk
    assert out["safety_risk"].evidence == ["a message"]  # no rule evidence: the message
    assert out["safety_risk"].counterevidence == ["a game"]
    assert out["vulnerability"] is before["vulnerability"]  # only safety_risk changes
    assert before["safety_risk"].probability == 0.0  # the input dict is not changed
    assert embed.calls == ["a message"]


def test_the_band_risks_sit_where_the_state_and_the_interrupt_expect_them() -> None:
    assert WEAK <= BANK_GREY_RISK < SAFETY_CONCERN_THRESHOLD
    assert SAFETY_INTERRUPT_THRESHOLD <= BANK_HIT_RISK < BANK_STRONG_RISK


@pytest.mark.parametrize("vector", [HIT, WEAK_HIT, GREY])
def test_the_layer_never_lowers_a_rules_reading(vector: NDArray[np.float32]) -> None:
    bank_layer, _ = layer({"I want to die": vector})
    out = bank_layer.apply("I want to die", readings(0.9, evidence=["want to die"]))
    assert out["safety_risk"].probability == 0.9
    assert out["safety_risk"].evidence == ["want to die"]
    assert rules_before_bank(out["safety_risk"]) == 0.9  # the band is still noted


def test_below_the_grey_band_the_readings_are_returned_as_they_were() -> None:
    bank_layer, embed = layer({})
    before = readings(0.1)
    assert bank_layer.apply("great meeting", before) is before
    assert embed.calls == ["great meeting"]


def test_an_embedder_that_raises_leaves_the_readings_unchanged() -> None:
    broken = BrokenEmbedder()
    before = readings(0.1)
    assert BankLayer(broken, small_bank(), THRESHOLDS).apply("anything", before) is before
    assert broken.calls == 1


def test_an_embedder_of_the_wrong_dimension_leaves_the_readings_unchanged() -> None:
    embed = TableEmbedder({"msg": np.ones(7, dtype=np.float32)})
    before = readings(0.1)
    assert BankLayer(embed, small_bank(), THRESHOLDS).apply("msg", before) is before


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_is_untouched_and_not_embedded(text: str) -> None:
    bank_layer, embed = layer({text: HIT})
    before = readings(0.0)
    assert bank_layer.apply(text, before) is before
    assert embed.calls == []


def test_readings_without_safety_risk_are_untouched() -> None:
    bank_layer, embed = layer({"msg": HIT})
    only = {"vulnerability": SensorOutput(sensor="vulnerability", probability=0.4)}
    assert bank_layer.apply("msg", only) is only
    assert embed.calls == []


def test_a_long_message_is_embedded_cut_to_max_embed_chars() -> None:
    bank_layer, embed = layer({})
    bank_layer.apply("x" * (MAX_EMBED_CHARS + 500), readings(0.0))
    assert len(embed.calls[0]) == MAX_EMBED_CHARS


def test_the_note_names_the_nearest_exemplar_and_fits_the_notes_field() -> None:
    long_text = "an exemplar much longer than forty characters, cut in the note"
    bank = ExemplarBank(VECTORS, LABELS, [long_text, *TEXTS[1:]], k=1)
    out = BankLayer(TableEmbedder({"m": HIT}), bank, THRESHOLDS).apply(
        "m", readings(0.0, notes="x" * 100)
    )
    notes = out["safety_risk"].notes
    assert f'≈ "{long_text[:40]}"' in notes
    assert len(notes) <= 100 and band_of(out["safety_risk"]) == "hit"


# ── BankThresholds ─────────────────────────────────────────────────────────────
def test_thresholds_load_from_json(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"k": 5, "strong": 0.2, "hit": 0.1, "grey": -0.05, "x": 1}))
    assert BankThresholds.load(path) == BankThresholds(k=5, strong=0.2, hit=0.1, grey=-0.05)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2, 3]",
        json.dumps({"k": 3, "strong": 0.2, "hit": 0.1}),  # no grey
        json.dumps({"k": "three", "strong": 0.2, "hit": 0.1, "grey": 0.0}),
        json.dumps({"k": 3, "strong": None, "hit": 0.1, "grey": 0.0}),
        json.dumps({"k": 0, "strong": 0.2, "hit": 0.1, "grey": 0.0}),  # k < 1
        json.dumps({"k": 3, "strong": 0.2, "hit": 0.1, "grey": 0.15}),  # grey > hit
        json.dumps({"k": 3, "strong": 0.05, "hit": 0.1, "grey": 0.0}),  # hit > strong
    ],
)
def test_bad_thresholds_are_a_bank_error_naming_the_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(text)
    with pytest.raises(BankError, match=r"t\.json"):
        BankThresholds.load(path)


# ── the shipped bank ───────────────────────────────────────────────────────────
def test_the_shipped_thresholds_and_bank_load() -> None:
    thresholds = BankThresholds.load(THRESHOLDS_FILE)
    assert thresholds.k >= 1 and thresholds.grey <= thresholds.hit <= thresholds.strong
    bank = load_bank(BANK_FILE, thresholds.k)
    assert bank.dimension == 512
    assert bank.model_id == "use-multilingual-v3"
    assert bank.positives.shape[0] > 0 and bank.negatives.shape[0] > 0
    assert len(bank.positive_texts) == bank.positives.shape[0]
    norms = np.linalg.norm(bank.positives, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-3)  # rows are unit vectors


def test_the_default_layer_loads_for_a_matching_encoder() -> None:
    embed = TableEmbedder()
    found = load_default_layer(embed, 512, "use-multilingual-v3")
    assert isinstance(found, BankLayer)
    assert found.embed is embed and found.bank.dimension == 512
    shipped = BankThresholds.load(THRESHOLDS_FILE)
    kept = found.thresholds
    assert (kept.k, kept.strong, kept.hit, kept.grey) == (
        shipped.k,
        shipped.strong,
        shipped.hit,
        shipped.grey,
    )
    assert isinstance(load_default_layer(embed, None), BankLayer)  # nothing to compare


def test_the_default_layer_is_none_for_another_dimension() -> None:
    assert load_default_layer(TableEmbedder(), 384, "use-multilingual-v3") is None


def test_the_default_layer_is_none_for_another_model() -> None:
    assert load_default_layer(TableEmbedder(), 512, "all-MiniLM-L6-v2") is None
