"""The understanding corpus's pieces: the split, expansion into messages in context, label
rows, Cohen's kappa, the agreement report and the intent scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rilai_desktop.cli.evaluation.corpus import (
    LabelError,
    agreement_report,
    cohen_kappa,
    expand_conversation,
    load_corpus,
    parse_label,
    split_of,
)
from rilai_desktop.cli.evaluation.corpus_reading import intent_scores, macro_f1


def test_split_is_fixed_by_the_conversation_id() -> None:
    parts = [split_of(f"b01-c{i:03d}") for i in range(1000)]
    assert split_of("b01-c001") == split_of("b01-c001")
    shares = {p: parts.count(p) / len(parts) for p in ("train", "dev", "test")}
    assert 0.65 < shares["train"] < 0.75
    assert 0.10 < shares["dev"] < 0.20 and 0.10 < shares["test"] < 0.20


def test_a_conversation_becomes_one_message_per_user_turn_with_three_turns_before() -> None:
    conv = {
        "conv": "b09-c004",
        "lang": "fr",
        "turns": [
            {"role": "user", "text": "a"},
            {"role": "rilai", "text": "b"},
            {"role": "user", "text": "c"},
            {"role": "rilai", "text": "d"},
            {"role": "user", "text": "e"},
        ],
    }
    rows = expand_conversation(conv)
    assert [r["id"] for r in rows] == ["b09-c004-1", "b09-c004-2", "b09-c004-3"]
    assert rows[0]["context"] == []
    assert [t["text"] for t in rows[2]["context"]] == ["b", "c", "d"]
    assert {r["split"] for r in rows} == {split_of("b09-c004")}
    assert all(r["lang"] == "fr" for r in rows)


def test_label_rows_are_checked() -> None:
    assert parse_label({"id": "x", "sensors": ["rupture"], "intent": "meta"}) == (
        "x",
        frozenset({"rupture"}),
        "meta",
    )
    with pytest.raises(LabelError, match="unknown sensors"):
        parse_label({"id": "x", "sensors": ["sadness"], "intent": "meta"})
    with pytest.raises(LabelError, match="intent must be one of"):
        parse_label({"id": "x", "sensors": [], "intent": "comfort"})
    with pytest.raises(LabelError, match="no id"):
        parse_label({"sensors": [], "intent": "meta"})


def test_cohen_kappa_matches_the_textbook() -> None:
    # 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> po 0.7, pe 0.5, kappa 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) == 1.0
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 0])


def test_agreement_report_has_every_sensor_and_the_intent() -> None:
    pairs = [
        ((frozenset({"vulnerability"}), "witness"), (frozenset({"vulnerability"}), "witness")),
        ((frozenset(), "observe"), (frozenset({"ambiguity"}), "clarify")),
        ((frozenset({"rupture"}), "meta"), (frozenset({"rupture"}), "meta")),
    ]
    report = agreement_report(pairs)
    assert report["messages"] == 3
    assert len(report["labels"]) == 10
    assert report["labels"]["vulnerability"]["kappa"] == 1.0
    assert report["labels"]["ambiguity"]["agreement"] == pytest.approx(0.667, abs=1e-3)
    assert report["labels"]["intent"]["agreement"] == pytest.approx(0.667, abs=1e-3)


def test_macro_f1_and_intent_scores() -> None:
    gold = ["witness", "guide", "guide", "observe"]
    pred = ["witness", "guide", "witness", "observe"]
    assert macro_f1(gold, pred, ["witness", "guide", "observe"]) == pytest.approx(
        (2 / 3 + 2 / 3 + 1.0) / 3
    )
    scores = intent_scores(gold, pred)
    assert scores["accuracy"] == 0.75
    assert scores["confusions"] == {"guide->witness": 1}


def test_load_corpus_reads_the_parts_asked_for(tmp_path: Path) -> None:
    rows = [
        {"id": "b01-c001-1", "conv": "b01-c001", "lang": "en", "context": [], "text": "hi",
         "sensors": [], "intent": "observe", "split": "train", "how": "agreed"},
        {"id": "b01-c002-1", "conv": "b01-c002", "lang": "de", "context":
         [{"role": "rilai", "text": "na?"}], "text": "geht so", "sensors": ["vulnerability"],
         "intent": "witness", "split": "test", "how": "adjudicated"},
    ]  # fmt: skip
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    test = load_corpus(path, ("test",))
    assert [m.id for m in test] == ["b01-c002-1"]
    assert test[0].context == (("rilai", "na?"),)
    assert test[0].label("vulnerability") == 1 and test[0].label("rupture") == 0
    assert len(load_corpus(path)) == 2
