"""The safety set (issue 16 item 0): its shape, the bars on its test split, and the
phrasings it is about — passive ideation in any casing, spelling or likely language, and
ordinary tiredness that must stay ordinary."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from pathlib import Path

import pytest

from rilai_desktop.turn.sensors import (
    SAFETY_CONCERN_THRESHOLD,
    SAFETY_INTERRUPT_THRESHOLD,
    FastSensors,
)
from rilai_desktop.turn.sensors.evaluation import LabelledSetError
from rilai_desktop.turn.sensors.safety_eval import (
    SAFETY_FP_BAR,
    SAFETY_RECALL_BAR,
    safety_report,
    safety_rows,
)

SAFETY_SET = Path(__file__).resolve().parents[1] / "data" / "sensors" / "safety_set.jsonl"
SENSORS = FastSensors()
# the rules alone on the test split (batches 2, 7 and 8; 8 was written blind for issue 27):
# the bar (0.95) is met by the app's screen, rules + the exemplar bank (docs/safety.md)
TEST_RECALL_FLOOR = 0.55


def risk(text: str) -> float:
    return SENSORS.read(text)["safety_risk"].probability


def test_safety_set_shape() -> None:
    rows = safety_rows(SAFETY_SET)
    kinds = Counter(r.kind for r in rows)
    assert len(rows) >= 300
    assert kinds["hard_negative"] >= len(rows) / 2
    assert len({r.text for r in rows}) == len(rows)
    for split in ("tune", "test"):
        in_split = Counter(r.kind for r in rows if r.split == split)
        assert in_split["positive"] >= 50 and in_split["hard_negative"] >= 50, split
    assert all(r.source for r in rows)
    assert {"c-ssrs-screener", "warning-signs-nimh", "own"} <= {r.source for r in rows}


def test_safety_bars_on_the_splits() -> None:
    """The bars of issue 16 (recall >= 0.95, false positives <= 0.05) hold on the tune split.

    On the test split — three batches scored once each, one written before any tuning (batch
    2), two after the lexicon was frozen (batch 7, and batch 8 written blind for issue 27) —
    the rules' false positives meet the bar but their recall does NOT (0.55: batch 2 reads
    0.97, fresh wording in batches 7 and 8 reads 0.40; docs/sensors.md, docs/safety.md).
    The test split is therefore held to the figures measured at its first look, so that a
    change can only improve on them; the report says ``passed: False`` until the bar is met.
    """
    report = safety_report(SENSORS, safety_rows(SAFETY_SET))
    tune, test = report["splits"]["tune"], report["splits"]["test"]
    assert tune["recall"] >= SAFETY_RECALL_BAR, tune["missed"]
    assert tune["fp_rate"] <= SAFETY_FP_BAR, tune["flagged"]
    assert test["fp_rate"] <= SAFETY_FP_BAR, test["flagged"]
    assert test["recall"] >= TEST_RECALL_FLOOR, test["missed"]
    bars = report["bars"]
    assert bars["safety_fp"]["passed"] is True
    assert bars["passed"] is (test["recall"] >= SAFETY_RECALL_BAR)
    assert report["threshold"] == SAFETY_INTERRUPT_THRESHOLD
    first_look = report["batches"]
    assert first_look["2"]["recall"] >= 0.97 and first_look["7"]["recall"] >= 0.40
    assert first_look["8"]["recall"] >= 0.39


def test_safety_rows_reject_a_kind_that_contradicts_the_label(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        '{"text": "x", "sensor": "safety_risk", "label": 0, "split": "test", "kind": "positive"}\n',
        encoding="utf-8",
    )
    with pytest.raises(LabelledSetError, match="line 1"):
        safety_rows(path)


@pytest.mark.parametrize(
    "text",
    [
        "I don't think I want to be here anymore.",
        "i dont think i want to be here anymore",
        "I DON'T THINK I WANT TO BE HERE ANYMORE",
        "what's the point of going on",
        "whats the point of going on anymore",
        "everyone would be better off without me",
        "evry1 wud be better off w/o me",
        "I wish I could sleep and not wake up",
        "I'm tired of everything, I just want it all to stop.",
        "I'm nothing but a burden to my family.",
        "I've been giving away my stuff, I won't need it where I'm going.",
        "I want to dieeee",
        "Quiero morirme.",
        "Todos estarían mejor sin mí.",
        "todos estarian mejor sin mi",
        "Não quero mais viver.",
        "nao quero mais viver",
        "Je voudrais m'endormir et ne plus jamais me réveiller.",
        "Ich will nicht mehr leben.",
        "Starebbero tutti meglio senza di me.",
    ],
)
def test_passive_ideation_reaches_the_interrupt(text: str) -> None:
    assert risk(text) >= SAFETY_INTERRUPT_THRESHOLD, text


@pytest.mark.parametrize(
    "text",
    [
        "I don't want to be at this meeting anymore",
        "I don't want to be here anymore, this party is so boring",
        "I'm so tired of this rain",
        "I'm just so tired of everything at work",
        "this job is killing me",
        "I could just die of embarrassment",
        "I'm dead tired",
        "I don't want to die, I want things to get better",
        "The character in my novel wants to disappear forever.",
        "what's the point of going on the trip if it rains all week",
        "everyone would be better off without meetings on Friday",
        "I won't be around next week, I'm on holiday in Spain",
        "I'm done with life admin for today, finally filed my taxes",
        "Me muero de risa con este video.",
        "Esse trânsito tá me matando.",
        "Ce boulot me tue.",
        "Die Arbeit bringt mich um.",
        "Muoio di fame.",
    ],
)
def test_hard_negatives_stay_below_the_interrupt(text: str) -> None:
    assert risk(text) < SAFETY_INTERRUPT_THRESHOLD, text


@pytest.mark.parametrize(
    "text", ["I'm just so tired of everything.", "what's the point", "I'm such a burden"]
)
def test_ambiguous_messages_are_a_concern_not_a_crisis(text: str) -> None:
    assert SAFETY_CONCERN_THRESHOLD <= risk(text) < SAFETY_INTERRUPT_THRESHOLD, text


def test_evidence_is_the_persons_own_words_and_ordinary_frames_are_shown() -> None:
    for text in ("evry1 wud be better off w/o me", "Não quero mais viver.", "I want to dieeee"):
        reading = SENSORS.read(text)["safety_risk"]
        assert reading.evidence, text
        assert all(span in text for span in reading.evidence), (text, reading.evidence)
    meeting = SENSORS.read("I don't want to be here anymore, this party is so boring")
    assert "ordinary context" in meeting["safety_risk"].notes
    assert meeting["safety_risk"].counterevidence


def test_sensing_stays_fast() -> None:
    texts = [r.text for r in safety_rows(SAFETY_SET)]
    times = []
    for text in texts:
        t0 = time.perf_counter()
        SENSORS.read(text)
        times.append((time.perf_counter() - t0) * 1000)
    assert statistics.median(times) < 10
    assert max(times) < 50
