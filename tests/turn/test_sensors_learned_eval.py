"""Rules alone against rules + learned layer on labelled rows (learned_eval.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.learned import LearnedLayer
from rilai_desktop.turn.sensors.learned_eval import (
    Example,
    as_json,
    compare,
    embedding_key,
    load_embedding_cache,
    load_public,
    macro,
)
from tests.turn.test_sensors_learned import fake_embed, heads

ROWS = [
    Example("I'm just so tired of everything.", "safety_risk", 1, "a"),
    Example("so tired of this rain, it never stops", "safety_risk", 0, "a"),
    Example("I baked a cake today", "safety_risk", 0, "a"),
    Example("tired. done. nothing left.", "safety_risk", 1, "a"),
    Example("I feel lonely most evenings", "vulnerability", 1, "b"),
    Example("we ate cake at the party", "vulnerability", 0, "b"),
]


def test_compare_reports_both_columns_per_sensor() -> None:
    layer = LearnedLayer(fake_embed, heads(0.5))
    result = compare(FastSensors(), layer, ROWS)
    assert list(result) == ["vulnerability", "safety_risk"]  # SENSOR_NAMES order
    safety = result["safety_risk"]
    assert safety["n"] == 4 and safety["positives"] == 2 and safety["sources"] == ["a"]
    assert safety["auroc_rules"] is not None and safety["auroc_learned"] is not None
    # the fake head sees 'tired' in one negative too: better than the rules, not perfect
    assert safety["auroc_learned"] > safety["auroc_rules"]
    assert result["vulnerability"]["auroc_learned"] == 1.0
    data = as_json(result)
    assert data["macro_learned"] == pytest.approx(macro(result, "learned"))
    assert data["macro_rules"] == pytest.approx(
        (safety["auroc_rules"] + result["vulnerability"]["auroc_rules"]) / 2
    )


def test_compare_without_a_layer_has_no_learned_column() -> None:
    result = compare(FastSensors(), None, ROWS)
    assert all(row["auroc_learned"] is None for row in result.values())
    assert macro(result, "learned") is None


def test_load_public_keeps_one_split_and_checks_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    rows = [
        {"text": "x", "sensor": "rupture", "label": 1, "split": "test", "source": "s"},
        {"text": "y", "sensor": "rupture", "label": 0, "split": "train", "source": "s"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    assert load_public(path) == [Example("x", "rupture", 1, "s")]
    assert load_public(path, "train") == [Example("y", "rupture", 0, "s")]
    path.write_text('{"text": "x", "sensor": "rupture", "label": 1, "split": "tune"}\n')
    with pytest.raises(ValueError, match="line 1"):
        load_public(path)
    path.write_text('{"text": "x", "sensor": "mood", "label": 1, "split": "test"}\n')
    with pytest.raises(ValueError, match="line 1"):
        load_public(path)


def test_embedding_cache_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cache.npz"
    assert load_embedding_cache(path) == {}
    vec = np.arange(4, dtype=np.float32)
    np.savez(path, keys=np.array([embedding_key("hello")]), vectors=np.stack([vec]))
    cache = load_embedding_cache(path)
    assert list(cache) == [embedding_key("hello")]
    assert np.array_equal(cache[embedding_key("hello")], vec)
    assert embedding_key("a" * 5000) == embedding_key("a" * 2000)  # cut like the layer
