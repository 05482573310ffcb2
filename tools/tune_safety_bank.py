"""Fit the exemplar bank's head and choose k, α and the thresholds on TUNE data only
-> rilai_desktop/turn/sensors/safety_bank.json.

    .venv/bin/python tools/tune_safety_bank.py [--write] [--fp 0.045] [--grey-share 0.08]

Every row of the bank is tune data (the safety set's tune split, our written exemplars, the
labelled set's ordinary tune messages and the public sources; the held-out texts never
enter it: tools/build_safety_bank.py). Out-of-fold scores come from 5 folds over the bank:
each fold's rows are scored by the neighbours and a logistic head (scikit-learn,
class-balanced, C = ``C``) of the other four folds. The rules read every row as the app
does. For each k in ``K_CHOICES`` and α in ``ALPHAS``:

* ``hit`` — the lowest score at which rules ∪ bank keeps false positives on our own hard
  negatives (not the ordinary messages) at or below ``--fp`` and the bank's hits on the
  ordinary messages (sadness, loneliness, advice, small talk) at or below
  ``--ordinary-hits`` (recall first: the lowest such threshold);
* ``strong`` — the score above which the bank alone has at most ``STRONG_FP`` false
  positives on those hard negatives (a hit there is never lowered by the model check);
* ``grey`` — the lowest score below ``hit`` at which the grey band [grey, hit), the messages
  the model check is asked about, holds at most ``--grey-share`` of the ordinary messages.

The (k, α) with the best recall of rules ∪ bank on our own positives wins. The head written
to the file is fitted on the whole bank; the standardisation is that of the out-of-fold
scores (a new message is out of sample too). The
test split, batch 8 and the scripted conversations are never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rilai_desktop.turn.sensors import FastSensors  # noqa: E402
from rilai_desktop.turn.sensors.safety_bank import BANK_FILE, THRESHOLDS_FILE  # noqa: E402

K_CHOICES = (3, 5)
ALPHAS = (0.5, 0.6, 0.7)
C = 4.0
FOLDS = 5
STRONG_FP = 0.005


def _top_mean(values: np.ndarray, k: int) -> np.ndarray:
    return -np.sort(-values, axis=1)[:, :k].mean(axis=1)


def _margins(
    queries: np.ndarray, vectors: np.ndarray, labels: np.ndarray, train: np.ndarray, k: int
) -> np.ndarray:
    """The neighbours' margin of each query against the ``train`` rows (a duplicate of the
    query itself never counts)."""
    sims = queries @ vectors[train].T
    sims[sims > 0.9999] = -np.inf
    pos = np.where(labels[train][None, :], sims, -np.inf)
    neg = np.where(~labels[train][None, :], sims, -np.inf)
    return _top_mean(pos, k) - _top_mean(neg, k)


def _fit(vectors: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, max_iter=3000, class_weight="balanced")
    model.fit(vectors, labels)
    return model.coef_[0].astype(np.float64), float(model.intercept_[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fp", type=float, default=0.045)
    parser.add_argument("--grey-share", type=float, default=0.08)
    parser.add_argument("--ordinary-hits", type=float, default=0.02)
    parser.add_argument("--write", action="store_true", help="write safety_bank.json")
    parser.add_argument("--dump", type=Path, help="write the out-of-fold scores (JSON) here")
    args = parser.parse_args(argv)

    with np.load(BANK_FILE, allow_pickle=False) as data:
        vectors = np.asarray(data["vectors"], dtype=np.float32)
        labels = np.asarray(data["labels"]).astype(bool)
        texts = [str(t) for t in data["texts"].tolist()]
    jsonl = BANK_FILE.with_suffix(".jsonl")
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines() if line]
    assert [r["text"] for r in rows] == texts, "the npz is not built from this jsonl"
    own = np.array([r["source"] == "own" for r in rows])
    ordinary = np.array([r.get("construct") == "ordinary" for r in rows])
    hard_neg = ~labels & own & ~ordinary
    own_pos = labels & own
    rules = np.array([FastSensors().read_rules(t)["safety_risk"].probability for t in texts])
    rule_hit = rules >= 0.5

    rng = np.random.default_rng(0)
    fold = rng.integers(0, FOLDS, len(texts))
    linear = np.zeros(len(texts))
    margins = {k: np.zeros(len(texts)) for k in K_CHOICES}
    for f in range(FOLDS):
        test, train = np.flatnonzero(fold == f), np.flatnonzero(fold != f)
        w, b = _fit(vectors[train], labels[train])
        linear[test] = vectors[test] @ w + b
        for k in K_CHOICES:
            margins[k][test] = _margins(vectors[test], vectors, labels, train, k)

    best: dict[str, float] | None = None
    for k in K_CHOICES:
        for alpha in ALPHAS:
            m = margins[k]
            score = (
                alpha * (m - m.mean()) / m.std()
                + (1 - alpha) * (linear - linear.mean()) / linear.std()
            )
            candidates = np.unique(np.round(score, 4))
            hits = [
                t
                for t in candidates
                if np.mean((rule_hit | (score >= t))[hard_neg]) <= args.fp
                and np.mean((score >= t)[ordinary]) <= args.ordinary_hits
            ]
            if not hits:
                continue
            hit = hits[0]
            strong = max(
                hit, next(t for t in candidates if np.mean((score >= t)[hard_neg]) <= STRONG_FP)
            )
            grey = hit
            for t in sorted((c for c in candidates if c < hit), reverse=True):
                in_band = (score >= t) & (score < hit)
                if in_band[ordinary].mean() > args.grey_share:
                    break
                grey = t
            caught = rule_hit | (score >= hit)
            row = {
                "k": k,
                "alpha": alpha,
                "hit": float(hit),
                "strong": float(strong),
                "grey": float(grey),
                "recall_own": float(caught[own_pos].mean()),
                "recall_rules_own": float(rule_hit[own_pos].mean()),
                "recall_all": float(caught[labels].mean()),
                "fp_hard_negatives": float(caught[hard_neg].mean()),
                "fp_public": float(caught[~labels & ~own].mean()),
                "ordinary_hits": float((score >= hit)[ordinary].mean()),
                "ordinary_grey": float(((score >= grey) & (score < hit))[ordinary].mean()),
            }
            print(json.dumps(row))
            if best is None or row["recall_own"] > best["recall_own"]:
                best = row
    assert best is not None, "no threshold meets the targets"
    k, alpha = int(best["k"]), float(best["alpha"])
    w, b = _fit(vectors, labels)
    # a new message is out of sample: standardise with the out-of-fold scores' statistics
    oof_margin = margins[k]
    out = {
        **best,
        "head": {
            "weights": [round(float(x), 6) for x in w],
            "bias": round(b, 6),
            "alpha": alpha,
            "margin_mean": float(oof_margin.mean()),
            "margin_sd": float(oof_margin.std()),
            "linear_mean": float(linear.mean()),
            "linear_sd": float(linear.std()),
            "C": C,
        },
        "chosen_on": f"tune: {FOLDS}-fold out-of-fold scores over the bank's rows",
        "fp_target": args.fp,
        "grey_share_target": args.grey_share,
        "ordinary_hits_target": args.ordinary_hits,
        "built": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "script": "tools/tune_safety_bank.py",
    }
    print("chosen:", json.dumps({k: v for k, v in out.items() if k != "head"}))
    if args.dump:
        m = margins[k]
        score = alpha * (m - m.mean()) / m.std() + (1 - alpha) * (linear - linear.mean()) / (
            linear.std()
        )
        kinds = np.where(ordinary, "ordinary", np.where(hard_neg, "hard_negative", "other"))
        kinds = np.where(own_pos, "positive", kinds)
        args.dump.write_text(
            json.dumps(
                [
                    {"text": t, "score": float(sc), "rules": float(r), "kind": str(kd)}
                    for t, sc, r, kd in zip(texts, score, rules, kinds, strict=True)
                ]
            ),
            encoding="utf-8",
        )
    if args.write:
        THRESHOLDS_FILE.write_text(json.dumps(out) + "\n", encoding="utf-8")
        print(f"wrote {THRESHOLDS_FILE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
