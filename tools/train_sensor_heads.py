"""Train the learned sensor heads (docs/sensors.md, "The learned layer").

    python tools/build_sensor_data.py          # public sets -> data/public/sensor_rows.jsonl
    python tools/sensor_embeddings.py          # MiniLM vectors -> data/public/embeddings.npz
    python tools/train_sensor_heads.py [--allow-unlicensed] [--out HEADS.npz]

One L2-regularised, class-balanced logistic regression per sensor over the 384-dimension
MiniLM embedding (numpy, Newton's method), trained on the TRAIN rows only. Chosen on the
DEV rows (never on test): the regularisation (dev AUROC of the head alone), then the blend
weight β of ``p = (1 − β)·rule + β·head`` (dev AUROC of the blend), among the β that keep
the project's own TUNE split (tests/data/sensors/labelled.jsonl) at least as good as the
rules alone: AUROC within 0.005, and neither recall nor precision at the sensor's
threshold lower.
The test rows are only read by ``rilai sense --eval``.

Sources whose licence is not stated are left out of training unless ``--allow-unlicensed``.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sensor_embeddings import DEFAULT_CACHE, PROJECT_SET, key, load_cache

from rilai_desktop.contracts.sensor import THRESHOLDS
from rilai_desktop.turn.sensors.evaluation import auroc, load_labelled, precision_recall
from rilai_desktop.turn.sensors.fast import FastSensors
from rilai_desktop.turn.sensors.learned import HEADS_FILE, Head, SensorHeads, blend, save_heads

SCRIPT_VERSION = 1
REPO = Path(__file__).resolve().parents[1]
ROWS = REPO / "data" / "public" / "sensor_rows.jsonl"
SOURCES = REPO / "data" / "public" / "sources.json"
LAMBDAS = (0.01, 0.1, 1.0, 10.0)
BETAS = tuple(round(0.05 * i, 2) for i in range(21))
TUNE_SLACK = 0.005
PRECISION_SLACK = 0.0

Matrix = np.ndarray


def fit_logistic(x: Matrix, y: Matrix, lam: float, iterations: int = 30) -> tuple[Matrix, float]:
    """Class-balanced L2 logistic regression by Newton's method; (weights, bias)."""
    n, d = x.shape
    pos = max(1.0, float(y.sum()))
    neg = max(1.0, float(n - y.sum()))
    sample_w = np.where(y > 0, n / (2 * pos), n / (2 * neg))
    xb = np.hstack([x, np.ones((n, 1))])
    theta = np.zeros(d + 1)
    reg = np.full(d + 1, lam)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        z = np.clip(xb @ theta, -30, 30)
        p = 1.0 / (1.0 + np.exp(-z))
        grad = xb.T @ (sample_w * (p - y)) / n + reg * theta / n
        h = (xb.T * (sample_w * p * (1 - p))) @ xb / n + np.diag(reg / n + 1e-9)
        step = np.linalg.solve(h, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-6:
            break
    return theta[:-1], float(theta[-1])


def sigmoid(z: Matrix) -> Matrix:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=HEADS_FILE)
    parser.add_argument("--allow-unlicensed", action="store_true")
    args = parser.parse_args(argv)

    sources = json.loads(SOURCES.read_text()) if SOURCES.is_file() else {}
    allowed = {
        name
        for name, info in sources.items()
        if args.allow_unlicensed or info.get("licence") not in (None, "none stated")
    }
    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    cache = load_cache(args.cache)
    rules = FastSensors()
    rule_p: dict[tuple[str, str], float] = {}

    def rule(text: str, sensor: str) -> float:
        k = (text, sensor)
        if k not in rule_p:
            for name, out in rules.read_rules(text).items():
                rule_p[(text, name)] = out.probability
        return rule_p[k]

    project = [r for r in load_labelled(PROJECT_SET) if r.split == "tune"]
    heads: dict[str, Head] = {}
    report: dict[str, object] = {}
    for sensor in sorted({r["sensor"] for r in rows}):
        mine = [r for r in rows if r["sensor"] == sensor and r["source"] in allowed]
        train = [r for r in mine if r["split"] == "train" and key(r["text"]) in cache]
        dev = [r for r in mine if r["split"] == "dev" and key(r["text"]) in cache]
        if not train or not dev:
            print(f"{sensor}: no licensed train/dev rows with embeddings; rules alone")
            continue
        x = np.stack([cache[key(r["text"])] for r in train]).astype(np.float64)
        y = np.array([r["label"] for r in train], dtype=np.float64)
        xd = np.stack([cache[key(r["text"])] for r in dev]).astype(np.float64)
        yd = [int(r["label"]) for r in dev]
        best: tuple[float, float, Matrix, float] | None = None
        for lam in LAMBDAS:
            w, b = fit_logistic(x, y, lam)
            score = auroc(sigmoid(xd @ w + b).tolist(), yd) or 0.0
            if best is None or score > best[0]:
                best = (score, lam, w, b)
        assert best is not None
        dev_head, lam, w, b = best
        q_dev = sigmoid(xd @ w + b)
        r_dev = [rule(r["text"], sensor) for r in dev]
        proj = [p for p in project if p.sensor == sensor and key(p.text) in cache]
        q_proj = sigmoid(np.stack([cache[key(p.text)] for p in proj]) @ w + b) if proj else []
        r_proj = [rule(p.text, sensor) for p in proj]
        y_proj = [p.label for p in proj]
        base_auc = auroc(r_proj, y_proj)
        base_precision, base_recall = precision_recall(r_proj, y_proj, THRESHOLDS[sensor])
        chosen = (auroc(r_dev, yd) or 0.0, 0.0)
        for beta in BETAS:
            blended = [blend(sensor, r, float(q), beta) for r, q in zip(r_dev, q_dev, strict=True)]
            score = auroc(blended, yd) or 0.0
            if proj and base_auc is not None:
                on_proj = [
                    blend(sensor, r, float(q), beta) for r, q in zip(r_proj, q_proj, strict=True)
                ]
                if (auroc(on_proj, y_proj) or 0.0) < base_auc - TUNE_SLACK:
                    continue
                precision, recall = precision_recall(on_proj, y_proj, THRESHOLDS[sensor])
                if (recall or 0.0) < (base_recall or 0.0):
                    continue
                if (precision or 0.0) < (base_precision or 0.0) - PRECISION_SLACK:
                    continue
            if score > chosen[0] + 1e-9:
                chosen = (score, beta)
        dev_blend, beta = chosen
        heads[sensor] = Head(sensor, w, b, beta)
        report[sensor] = {
            "train_rows": len(train),
            "train_positives": int(y.sum()),
            "dev_rows": len(dev),
            "lambda": lam,
            "beta": beta,
            "dev_auroc_rules": auroc(r_dev, yd),
            "dev_auroc_head": dev_head,
            "dev_auroc_blend": dev_blend,
            "sources": sorted({r["source"] for r in train}),
        }
        print(f"{sensor}: {json.dumps(report[sensor])}")
    if not heads:
        print("no heads trained")
        return 1
    meta = {
        "script": "tools/train_sensor_heads.py",
        "script_version": SCRIPT_VERSION,
        "built": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "embedding": "all-MiniLM-L6-v2 (384, L2-normalised)",
        "sources": {name: sources[name] for name in sorted(allowed) if name in sources},
        "sensors": report,
    }
    dimension = next(iter(heads.values())).weights.shape[0]
    save_heads(args.out, SensorHeads(dimension, heads, meta))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
