"""FastSensors as a whole: the API shape, robustness on any input, normalisation, evidence."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.turn.sensors import (
    ADVICE_DECLINED,
    INJECTION_THRESHOLD,
    MAX_SCAN_CHARS,
    SAFETY_INTERRUPT_THRESHOLD,
    THRESHOLDS,
    FastSensors,
)
from rilai_desktop.turn.sensors.scoring import MAX_SPAN_CHARS, noisy_or
from rilai_desktop.turn.sensors.text import normalise

SENSORS = FastSensors()

ANY_CHAR = st.characters(blacklist_categories=())  # every category, surrogates included


def _check_shape(out: dict[str, SensorOutput]) -> None:
    assert list(out) == list(SENSOR_NAMES)
    for name, reading in out.items():
        assert isinstance(reading, SensorOutput)
        assert reading.sensor == name
        assert 0.0 <= reading.probability <= 1.0
        assert len(reading.notes) <= 100
        assert all(isinstance(span, str) and span for span in reading.evidence)


def test_public_constants() -> None:
    assert ADVICE_DECLINED == "advice_declined"
    assert 0.0 < SAFETY_INTERRUPT_THRESHOLD < 1.0
    assert 0.0 < INJECTION_THRESHOLD < 1.0
    assert set(THRESHOLDS) == set(SENSOR_NAMES)
    assert THRESHOLDS["safety_risk"] == SAFETY_INTERRUPT_THRESHOLD
    assert THRESHOLDS["prompt_injection"] == INJECTION_THRESHOLD
    assert MAX_SCAN_CHARS == 20_000


@settings(deadline=None, max_examples=200)
@given(st.text(ANY_CHAR, max_size=400))
def test_never_raises_and_always_nine_readings(text: str) -> None:
    _check_shape(SENSORS.read(text))


@settings(deadline=None, max_examples=100)
@given(st.binary(max_size=600))
def test_binary_garbage_decoded_any_way_is_fine(data: bytes) -> None:
    _check_shape(SENSORS.read(data.decode("latin-1")))
    _check_shape(SENSORS.read(data.decode("utf-8", errors="surrogateescape")))


@settings(deadline=None, max_examples=100)
@given(st.text(ANY_CHAR, max_size=300))
def test_evidence_spans_come_from_the_normalised_text(text: str) -> None:
    collapsed = " ".join(normalise(text).clean.split())
    for reading in SENSORS.read(text).values():
        for span in (*reading.evidence, *reading.counterevidence):
            # spans are whitespace-collapsed slices of the normalised text, long ones clipped
            if len(span) == MAX_SPAN_CHARS and span.endswith("…"):
                span = span[:-1]
            assert span in collapsed


@pytest.mark.parametrize("text", ["", " ", "\n\t  \r\n", "\x00\x01\x02", "\u200b\u200d"])
def test_empty_input_is_only_ambiguous(text: str) -> None:
    out = SENSORS.read(text)
    _check_shape(out)
    for name, reading in out.items():
        if name == "ambiguity":
            assert reading.probability >= 0.9
        else:
            assert reading.probability == 0.0


def test_non_string_input_does_not_raise() -> None:
    for weird in (None, b"I want to die", 42, ["list"]):
        _check_shape(SENSORS.read(weird))  # type: ignore[arg-type]
    assert SENSORS.read(b"I want to die")["safety_risk"].probability >= 0.5  # type: ignore[arg-type]


def test_huge_input_is_capped_and_still_read() -> None:
    text = "I want to die. " + "x" * 100_000
    out = SENSORS.read(text)
    _check_shape(out)
    assert out["safety_risk"].probability >= SAFETY_INTERRUPT_THRESHOLD
    assert normalise(text).truncated
    assert len(normalise(text).clean) == MAX_SCAN_CHARS


def test_text_beyond_the_cap_is_not_read() -> None:
    text = "a " * MAX_SCAN_CHARS + "I want to die"
    assert SENSORS.read(text)["safety_risk"].probability == 0.0


def test_random_bytes_blob() -> None:
    _check_shape(SENSORS.read(os.urandom(30_000).decode("latin-1")))


def test_normalisation_nfkc_controls_zero_width_and_quotes() -> None:
    norm = normalise("\uff49 \uff57\uff41\uff4e\uff54 ki\u200bll\x07 I\u2019M")
    assert norm.clean == "i want kill I’M"
    assert norm.folded == "i want kill i'm"
    assert norm.span(0, len(norm.folded)) == norm.clean


def test_case_folding_that_changes_length_keeps_spans_exact() -> None:
    norm = normalise("Straße: I want to die")
    start = norm.folded.index("i want")
    assert norm.span(start, len(norm.folded)) == "I want to die"
    assert norm.span(0, norm.folded.index(":")) == "Straße"


def test_fullwidth_and_zero_width_tricks_still_trip_safety() -> None:
    assert (
        SENSORS.read("\uff49 \uff57\uff41\uff4e\uff54 \uff54\uff4f \uff44\uff49\uff45")[
            "safety_risk"
        ].probability
        >= SAFETY_INTERRUPT_THRESHOLD
    )
    assert SENSORS.read("I want to ki\u200bll myself")["safety_risk"].probability >= 0.9


def test_probabilities_are_graded_not_binary() -> None:
    values = {
        round(SENSORS.read(t)["safety_risk"].probability, 3)
        for t in (
            "I want to die",
            "my friend said she wants to die",
            "I don't want to die",
            "the character in my novel kills himself",
            "my grandpa died last spring",
            "hello",
        )
    }
    assert len(values) >= 5


def test_noisy_or() -> None:
    assert noisy_or([]) == 0.0
    assert noisy_or([0.5, 0.5]) == pytest.approx(0.75)
    assert noisy_or([0.2, 0.5, 0.1]) == pytest.approx(1 - 0.8 * 0.5 * 0.9)
    assert noisy_or([1.5, -1.0]) == 1.0  # clamped


def test_readings_are_deterministic_and_instances_share_nothing() -> None:
    text = "lol I want to die 😅 what should I do?"
    assert FastSensors().read(text) == FastSensors().read(text)
