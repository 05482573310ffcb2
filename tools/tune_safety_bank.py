"""Choose the exemplar bank's k and thresholds on TUNE data only -> safety_bank.json.

    .venv/bin/python tools/tune_safety_bank.py [--fp 0.03] [--grey-share 0.08]

Every row of the bank is tune data (the safety set's tune split, our written exemplars and
the public sources; the held-out texts never enter it: tools/build_safety_bank.py). Each
bank row is scored leave-one-out (its own vector, and any exact duplicate, skipped), the
rules read it as the app does, and for each k in K_CHOICES:

* ``hit`` — the lowest margin at which rules ∪ bank keeps false positives on the bank's
  negatives at or below ``--fp`` and the bank's hits on ordinary messages (its "ordinary"
  negatives: sadness, loneliness, advice, small talk) at or below ``--ordinary-hits``
  (recall first: the lowest such threshold);
* ``strong`` — the margin at which the bank alone has at most ``STRONG_FP`` false positives
  (a hit above it is never lowered by the model check);
* ``grey`` — the lowest margin below ``hit`` at which the grey band [grey, hit) holds at
  most ``--grey-share`` of ordinary messages and of the bank's negatives.

The k with the best recall of rules ∪ bank at ``hit`` wins. The test split, batch 8 and the
scripted conversations are never read here.
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
from rilai_desktop.turn.sensors.safety_bank import (  # noqa: E402
    BANK_FILE,
    THRESHOLDS_FILE,
    load_bank,
)

K_CHOICES = (1, 3, 5)
STRONG_FP = 0.005


def _margins(bank_path: Path, k: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    bank = load_bank(bank_path, k)
    with np.load(bank_path, allow_pickle=False) as data:
        vectors = np.asarray(data["vectors"], dtype=np.float32)
        labels = np.asarray(data["labels"]).astype(bool)
        texts = [str(t) for t in data["texts"].tolist()]
    margins = np.array([bank.match(v, exclude=0.9999).margin for v in vectors])
    return margins, labels, texts


def _ordinary_mask(texts: list[str]) -> np.ndarray:
    """The bank rows that are ordinary messages (construct "ordinary" in the jsonl)."""
    jsonl = BANK_FILE.with_suffix(".jsonl")
    rows = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines() if line]
    ordinary = {r["text"] for r in rows if r.get("construct") == "ordinary"}
    return np.array([t in ordinary for t in texts])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fp", type=float, default=0.03)
    parser.add_argument("--grey-share", type=float, default=0.08)
    parser.add_argument("--ordinary-hits", type=float, default=0.02)
    parser.add_argument("--write", action="store_true", help="write safety_bank.json")
    args = parser.parse_args(argv)

    sensors = FastSensors()
    best: dict[str, float] | None = None
    for k in K_CHOICES:
        margins, labels, texts = _margins(BANK_FILE, k)
        rules = np.array([sensors.read_rules(t)["safety_risk"].probability for t in texts])
        rule_hit = rules >= 0.5
        neg, pos = ~labels, labels
        ordinary = _ordinary_mask(texts)
        ordinary_margins = margins[ordinary]
        candidates = np.unique(np.round(margins, 4))
        hit = next(
            t
            for t in candidates
            if np.mean((rule_hit | (margins >= t))[neg]) <= args.fp
            and np.mean(ordinary_margins >= t) <= args.ordinary_hits
        )
        strong = next(t for t in candidates if np.mean((margins >= t)[neg]) <= STRONG_FP)
        strong = max(strong, hit)
        grey = hit
        for t in sorted((c for c in candidates if c < hit), reverse=True):
            share_ordinary = np.mean((ordinary_margins >= t) & (ordinary_margins < hit))
            share_negatives = np.mean(((margins >= t) & (margins < hit))[neg])
            if share_ordinary > args.grey_share or share_negatives > args.grey_share:
                break
            grey = t
        caught = rule_hit | (margins >= hit)
        row = {
            "k": k,
            "hit": float(hit),
            "strong": float(strong),
            "grey": float(grey),
            "recall": float(np.mean(caught[pos])),
            "recall_rules": float(np.mean(rule_hit[pos])),
            "fp": float(np.mean(caught[neg])),
            "grey_share_ordinary": float(
                np.mean((ordinary_margins >= grey) & (ordinary_margins < hit))
            ),
            "hit_share_ordinary": float(np.mean(ordinary_margins >= hit)),
            "grey_or_weak_positives": float(np.mean(((margins >= grey) & ~caught)[pos])),
        }
        print(json.dumps(row))
        if best is None or row["recall"] > best["recall"]:
            best = row
    assert best is not None
    out = {
        **best,
        "chosen_on": "tune (the bank's own rows, leave-one-out; the labelled set's tune split)",
        "fp_target": args.fp,
        "grey_share_target": args.grey_share,
        "built": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "script": "tools/tune_safety_bank.py",
    }
    print("chosen:", json.dumps(out))
    if args.write:
        THRESHOLDS_FILE.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {THRESHOLDS_FILE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
