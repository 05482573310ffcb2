"""Convert public labelled datasets into sensor rows for the learned layer (docs/sensors.md).

    python tools/build_sensor_data.py [--raw data/public/raw] [--out data/public/sensor_rows.jsonl]

Reads the raw public files from ``--raw`` (git-ignored; where to get each one is below) and
writes one JSON object a line::

    {"text": ..., "sensor": <sensor name>, "label": 0|1, "split": "train"|"dev"|"test",
     "source": <source id>}

Sources (nothing here was written by this project; each keeps its own licence):

* ``goemotions`` — GoEmotions (Demszky et al. 2020), 58k Reddit comments with 27 emotion
  labels, CC BY 4.0, from google-research/google-research ``goemotions/data`` (the copy
  used is the identical ``data/original/{train,dev,test}.tsv`` of monologg/GoEmotions-pytorch,
  Apache-2.0). Its own train/dev/test split is kept, sampled (``GOEMOTIONS_SIZES``). Put
  the three TSVs and ``labels.txt`` in ``RAW/goemotions/``. Mapped, as *proxies*
  (GoEmotions labels the emotion in a comment, not a message to a companion):

  - ``vulnerability`` = sadness, fear, grief, nervousness, remorse, embarrassment or
    disappointment among the comment's labels;
  - ``rupture`` = anger or annoyance (displeasure in a reply to someone).

* ``twitter_suicidal`` — laxmimerit/twitter-suicidal-intention-dataset (9,119 tweets,
  ``intention`` 1 = suicidal), each cut to its first 300 characters. **No licence is
  stated** in that repository (its README invites cloning it). Put
  ``twitter-suicidal_data.csv`` in ``RAW/twitter_suicidal/``. It has no split of its own:
  a fixed split by a hash of the text (70 / 15 / 15 train/dev/test).
  ``safety_risk`` = intention. Because of the missing licence the training script uses it
  for evaluation only unless told otherwise (``--allow-unlicensed``).

No public labelled set reachable here fits ``advice_requested``, ``relational_bid``,
``ai_feelings_probe`` or ``ambiguity``. ``humor_masking`` was tried on GoEmotions (amusement,
or a "lol"/"haha"/emoji marker, together with a heavy emotion): 4 and 7 positives in its
test split, too few to measure, so it is not built; ``prompt_injection`` has only 35
MIT-licensed positives (Giskard-AI/prompt-injections) and no negatives of the same kind, too few to
train or measure on. Those sensors keep their rules alone.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_RAW = REPO / "data" / "public" / "raw"
DEFAULT_OUT = REPO / "data" / "public" / "sensor_rows.jsonl"

TWEET_CHARS = 300  # a tweet is cut to its first 300 characters: the length of a chat message
# GoEmotions is sampled (by a hash of the text, so the same rows every time) to keep the
# embedding work on a 2-core machine to minutes: every train positive and enough negatives
# for GOEMOTIONS_SIZES["train"] rows, and fixed-size samples of dev and test.
GOEMOTIONS_SIZES = {"train": 12_000, "dev": 1_500, "test": 2_000}

HEAVY = ("sadness", "fear", "grief", "nervousness", "remorse", "embarrassment", "disappointment")
DISPLEASURE = ("anger", "annoyance")

SOURCES = {
    "goemotions": {
        "licence": "CC BY 4.0",
        "url": "https://github.com/google-research/google-research/tree/master/goemotions",
        "sensors": ["vulnerability", "rupture"],
    },
    "twitter_suicidal": {
        "licence": "none stated",
        "url": "https://github.com/laxmimerit/twitter-suicidal-intention-dataset",
        "sensors": ["safety_risk"],
    },
}

Row = dict[str, object]


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _goemotions(raw: Path) -> Iterator[Row]:
    folder = raw / "goemotions"
    names = (folder / "labels.txt").read_text(encoding="utf-8").split()
    for split in ("train", "dev", "test"):
        comments: dict[str, tuple[bool, bool]] = {}
        with (folder / f"{split}.tsv").open(encoding="utf-8", newline="") as fh:
            for line in csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
                if len(line) < 2 or not line[0].strip():
                    continue
                labels = {names[int(i)] for i in line[1].split(",") if i.strip()}
                heavy, displeased = bool(labels & set(HEAVY)), bool(labels & set(DISPLEASURE))
                comments.setdefault(line[0].strip(), (heavy, displeased))
        order = sorted(comments, key=_digest)
        size = GOEMOTIONS_SIZES[split]
        if split == "train":  # every positive, then negatives up to the size
            positives = [t for t in order if any(comments[t])]
            negatives = [t for t in order if not any(comments[t])]
            order = positives + negatives[: max(0, size - len(positives))]
        for text in order[:size] if split != "train" else order:
            heavy, displeased = comments[text]
            yield _row(text, "vulnerability", heavy, split, "goemotions")
            yield _row(text, "rupture", displeased, split, "goemotions")


def hashed_split(text: str) -> str:
    """A fixed 70/15/15 train/dev/test split from the text's sha256 (no seed to drift)."""
    bucket = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big") % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def _twitter(raw: Path) -> Iterator[Row]:
    path = raw / "twitter_suicidal" / "twitter-suicidal_data.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        for rec in csv.DictReader(fh):
            text = (rec.get("tweet") or "").strip()[:TWEET_CHARS].strip()
            label = (rec.get("intention") or "").strip()
            if not text or label not in ("0", "1"):
                continue
            yield _row(text, "safety_risk", label == "1", hashed_split(text), "twitter_suicidal")


def _row(text: str, sensor: str, label: bool, split: str, source: str) -> Row:
    return {"text": text, "sensor": sensor, "label": int(label), "split": split, "source": source}


READERS = {"goemotions": _goemotions, "twitter_suicidal": _twitter}


def build(raw: Path) -> tuple[list[Row], list[str]]:
    """All rows from every source present under ``raw``; the second item names the absent."""
    rows: list[Row] = []
    missing: list[str] = []
    seen: set[tuple[str, str]] = set()
    for source, reader in READERS.items():
        try:
            for row in reader(raw):
                key = (str(row["text"]), str(row["sensor"]))
                if key in seen:  # a text repeated inside a source keeps its first split
                    continue
                seen.add(key)
                rows.append(row)
        except FileNotFoundError as exc:
            missing.append(f"{source} ({exc.filename})")
    return rows, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    rows, missing = build(args.raw)
    for name in missing:
        print(f"skipped (raw files absent): {name}", file=sys.stderr)
    if not rows:
        print("no rows: put the raw files under --raw (see this script's docstring)")
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = Counter((r["sensor"], r["split"], r["label"]) for r in rows)
    print(f"{len(rows)} rows -> {args.out}")
    for sensor in sorted({str(r["sensor"]) for r in rows}):
        parts = []
        for split in ("train", "dev", "test"):
            pos, neg = counts[(sensor, split, 1)], counts[(sensor, split, 0)]
            parts.append(f"{split} {pos}/{pos + neg}")
        print(f"  {sensor:15s} positives/rows: " + ", ".join(parts))
    meta = {name: {k: v for k, v in info.items()} for name, info in SOURCES.items()}
    (args.out.parent / "sources.json").write_text(json.dumps(meta, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
