"""Rules alone against rules + learned layer: per-sensor AUROC on a labelled set.

Used by ``rilai sense --eval`` (the project's own split and the public test rows) and by
``tools/train_sensor_heads.py``. Each distinct text is read once: the rules' readings, then
the learned layer applied over those same readings, so the two columns differ only by the
learned part.

Public rows (``data/public/sensor_rows.jsonl``, built by ``tools/build_sensor_data.py``) are
``{"text", "sensor", "label", "split": "train"|"dev"|"test", "source"}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.jsonl import object_lines
from rilai_desktop.turn.sensors.evaluation import auroc
from rilai_desktop.turn.sensors.fast import FastSensors
from rilai_desktop.turn.sensors.learned import MAX_EMBED_CHARS, LearnedLayer

PUBLIC_SPLITS = ("train", "dev", "test")


def embedding_key(text: str) -> str:
    """The key of a text in an embedding cache: sha256 of what the layer embeds."""
    cut = text[:MAX_EMBED_CHARS].encode("utf-8", "surrogatepass")
    return hashlib.sha256(cut).hexdigest()


def load_embedding_cache(path: Path) -> dict[str, NDArray[np.float32]]:
    """``tools/sensor_embeddings.py``'s cache (key -> vector); {} when there is none."""
    if not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as data:
        keys = [str(k) for k in data["keys"].tolist()]
        return dict(zip(keys, np.asarray(data["vectors"], dtype=np.float32), strict=True))


@dataclass(frozen=True)
class Example:
    text: str
    sensor: str
    label: int
    source: str = ""


class Comparison(TypedDict):
    n: int
    positives: int
    auroc_rules: float | None
    auroc_learned: float | None
    sources: list[str]


def load_public(path: Path, split: str = "test") -> list[Example]:
    """The rows of ``split`` in a public rows file (``ValueError`` naming a bad line)."""
    out: list[Example] = []

    def bad(number: int, problem: str) -> ValueError:
        return ValueError(f"{path} line {number}: {problem}")

    for number, obj in object_lines(path.read_text(encoding="utf-8"), bad):
        text, sensor, label = obj.get("text"), obj.get("sensor"), obj.get("label")
        if not isinstance(text, str) or sensor not in SENSOR_NAMES or label not in (0, 1):
            raise ValueError(f"{path} line {number}: needs text, a sensor name and label 0|1")
        if obj.get("split") not in PUBLIC_SPLITS:
            raise ValueError(f"{path} line {number}: split must be train, dev or test")
        if obj["split"] == split:
            out.append(Example(text, str(sensor), int(label), str(obj.get("source", ""))))
    return out


def compare(
    sensors: FastSensors,
    learned: LearnedLayer | None,
    examples: Iterable[Example],
) -> dict[str, Comparison]:
    """Per sensor present in ``examples``: AUROC of the rules and of rules + ``learned``."""
    rules_cache: dict[str, Mapping[str, SensorOutput]] = {}
    learned_cache: dict[str, Mapping[str, SensorOutput]] = {}
    scores: dict[str, tuple[list[float], list[float], list[int], set[str]]] = {}
    for ex in examples:
        if ex.text not in rules_cache:
            rules = sensors.read_rules(ex.text)
            rules_cache[ex.text] = rules
            learned_cache[ex.text] = rules if learned is None else learned.apply(ex.text, rules)
        r, lr, labels, sources = scores.setdefault(ex.sensor, ([], [], [], set()))
        r.append(rules_cache[ex.text][ex.sensor].probability)
        lr.append(learned_cache[ex.text][ex.sensor].probability)
        labels.append(ex.label)
        if ex.source:
            sources.add(ex.source)
    out: dict[str, Comparison] = {}
    for name in SENSOR_NAMES:
        if name not in scores:
            continue
        r, lr, labels, sources = scores[name]
        out[name] = Comparison(
            n=len(labels),
            positives=sum(labels),
            auroc_rules=auroc(r, labels),
            auroc_learned=None if learned is None else auroc(lr, labels),
            sources=sorted(sources),
        )
    return out


def macro(table: Mapping[str, Comparison], column: Literal["rules", "learned"]) -> float | None:
    """Mean of one AUROC column over the sensors that have it."""
    picked = [
        row["auroc_rules" if column == "rules" else "auroc_learned"] for row in table.values()
    ]
    values = [v for v in picked if v is not None]
    return sum(values) / len(values) if values else None


def as_json(table: Mapping[str, Comparison]) -> dict[str, Any]:
    return {
        "sensors": {name: dict(row) for name, row in table.items()},
        "macro_rules": macro(table, "rules"),
        "macro_learned": macro(table, "learned"),
    }
