"""The understanding corpus: messages in context, labelled twice, adjudicated (issue 28).

``tests/data/corpus/gold.jsonl`` holds one message a line — its id, conversation, language,
the up-to-three turns before it, the text, the sensors present (the nine names) and the
intent a caring companion should answer with — plus the part it belongs to. The part is
fixed by a hash of the conversation id (``split_of``), so the test part is the same
everywhere and nothing we choose moves a message into or out of it.

``cohen_kappa`` and ``agreement_report`` measure how far the two labelers agreed
(docs/eval.md); ``tools/corpus.py`` builds the files.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.contracts.sensor import SENSOR_NAMES
from rilai_desktop.paths import REPO_ROOT

CORPUS_DIR: Final[Path] = REPO_ROOT / "tests" / "data" / "corpus"
GOLD: Final[Path] = CORPUS_DIR / "gold.jsonl"
CONTEXT_TURNS: Final[int] = 3
LABEL_INTENTS: Final[tuple[str, ...]] = INTENTS  # witness … observe, and meta
SPLITS: Final[tuple[str, ...]] = ("train", "dev", "test")


class LabelError(ValueError):
    """A label row that is not in the guide's shape."""


@dataclass(frozen=True)
class CorpusMessage:
    id: str
    conv: str
    lang: str
    context: tuple[tuple[str, str], ...]  # (role, text), oldest first
    text: str
    sensors: frozenset[str]
    intent: str
    split: str

    def label(self, sensor: str) -> int:
        return int(sensor in self.sensors)


def split_of(conv: str) -> str:
    """train / dev / test from the conversation id alone (70 / 15 / 15)."""
    bucket = int(hashlib.sha256(conv.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def expand_conversation(conv: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One message row per user turn, with the (up to three) turns before it."""
    turns = list(conv["turns"])
    rows = []
    index = 0
    for position, turn in enumerate(turns):
        if turn["role"] != "user":
            continue
        index += 1
        before = turns[max(0, position - CONTEXT_TURNS) : position]
        rows.append(
            {
                "id": f"{conv['conv']}-{index}",
                "conv": conv["conv"],
                "lang": conv["lang"],
                "context": [{"role": t["role"], "text": t["text"]} for t in before],
                "text": turn["text"],
                "split": split_of(conv["conv"]),
            }
        )
    return rows


def parse_label(row: Mapping[str, Any]) -> tuple[str, frozenset[str], str]:
    """(id, sensors, intent) of one labeler's row; ``LabelError`` naming what is wrong."""
    ident = row.get("id")
    if not isinstance(ident, str) or not ident:
        raise LabelError("no id")
    sensors = row.get("sensors")
    if not isinstance(sensors, list) or not all(isinstance(s, str) for s in sensors):
        raise LabelError(f"{ident}: sensors must be a list of names")
    unknown = [s for s in sensors if s not in SENSOR_NAMES]
    if unknown:
        raise LabelError(f"{ident}: unknown sensors {unknown}")
    intent = row.get("intent")
    if intent not in LABEL_INTENTS:
        raise LabelError(f"{ident}: intent must be one of {', '.join(LABEL_INTENTS)}")
    return ident, frozenset(sensors), str(intent)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa of two labelers over the same items (1.0 when both are constant and
    equal; 0.0 when chance agreement is total but they differ)."""
    if len(a) != len(b):
        raise ValueError("two labelers must label the same items")
    n = len(a)
    if n == 0:
        raise ValueError("no items")
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - expected) / (1.0 - expected)


Label = tuple[frozenset[str], str]


def agreement_report(pairs: Sequence[tuple[Label, Label]]) -> dict[str, Any]:
    """Kappa and raw agreement per sensor (present or not) and for the intent."""
    labels: dict[str, dict[str, Any]] = {}
    for sensor in SENSOR_NAMES:
        a = [int(sensor in x[0]) for x, _ in pairs]
        b = [int(sensor in y[0]) for _, y in pairs]
        labels[sensor] = {
            "kappa": round(cohen_kappa(a, b), 3),
            "agreement": round(sum(i == j for i, j in zip(a, b, strict=True)) / len(a), 3),
            "a_positive": sum(a),
            "b_positive": sum(b),
        }
    ia = [x[1] for x, _ in pairs]
    ib = [y[1] for _, y in pairs]
    labels["intent"] = {
        "kappa": round(cohen_kappa(ia, ib), 3),
        "agreement": round(sum(i == j for i, j in zip(ia, ib, strict=True)) / len(ia), 3),
    }
    sensor_kappas = [labels[s]["kappa"] for s in SENSOR_NAMES]
    return {
        "messages": len(pairs),
        "labels": labels,
        "mean_sensor_kappa": round(sum(sensor_kappas) / len(sensor_kappas), 3),
        "intent_counts_a": dict(Counter(ia).most_common()),
        "intent_counts_b": dict(Counter(ib).most_common()),
    }


def load_corpus(path: Path = GOLD, splits: Iterable[str] | None = None) -> list[CorpusMessage]:
    """The gold messages of ``splits`` (all when None), in file order."""
    wanted = set(splits) if splits is not None else set(SPLITS)
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if r["split"] not in wanted:
            continue
        rows.append(
            CorpusMessage(
                id=r["id"],
                conv=r["conv"],
                lang=r["lang"],
                context=tuple((t["role"], t["text"]) for t in r["context"]),
                text=r["text"],
                sensors=frozenset(r["sensors"]),
                intent=r["intent"],
                split=r["split"],
            )
        )
    return rows
