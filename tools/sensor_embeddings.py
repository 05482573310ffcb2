"""Embed every text the learned sensor layer trains or is measured on, once, into a cache.

    python tools/sensor_embeddings.py [--rows data/public/sensor_rows.jsonl] [--threads 2]

The texts of the public rows (tools/build_sensor_data.py) and of the project's labelled set
(tests/data/sensors/labelled.jsonl) go through the same all-MiniLM-L6-v2 the app loads
(HF_HUB_OFFLINE=1), cut like the runtime cuts them (learned.MAX_EMBED_CHARS), and are stored
in data/public/embeddings.npz (sha256 of the text -> float32 vector). A second run embeds
only what is new. tools/train_sensor_heads.py reads the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

from rilai_desktop.memory.embedding import EmbeddingService
from rilai_desktop.turn.sensors.learned import MAX_EMBED_CHARS
from rilai_desktop.turn.sensors.learned_eval import embedding_key as key
from rilai_desktop.turn.sensors.learned_eval import load_embedding_cache as load_cache

REPO = Path(__file__).resolve().parents[1]
DEFAULT_ROWS = REPO / "data" / "public" / "sensor_rows.jsonl"
DEFAULT_CACHE = REPO / "data" / "public" / "embeddings.npz"
PROJECT_SET = REPO / "tests" / "data" / "sensors" / "labelled.jsonl"


__all__ = ["DEFAULT_CACHE", "PROJECT_SET", "key", "load_cache"]


def save_cache(path: Path, cache: dict[str, np.ndarray]) -> None:
    keys = sorted(cache)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, keys=np.array(keys), vectors=np.stack([cache[k] for k in keys]))
    tmp.replace(path)


def texts_of(*paths: Path) -> list[str]:
    seen: dict[str, None] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                text = json.loads(line)["text"]
                if text.strip():
                    seen.setdefault(text, None)
    return list(seen)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=Path, default=DEFAULT_ROWS)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=512)
    args = parser.parse_args(argv)
    cache = load_cache(args.cache)
    todo = [t for t in texts_of(args.rows, PROJECT_SET) if key(t) not in cache]
    todo.sort(key=len)  # similar lengths batch together: less padding
    print(f"{len(cache)} cached, {len(todo)} to embed", flush=True)
    embedder = EmbeddingService(threads=args.threads, batch_size=64, cache_size=0)
    start = time.monotonic()
    for i in range(0, len(todo), args.chunk):
        chunk = todo[i : i + args.chunk]
        vectors = embedder.embed([t[:MAX_EMBED_CHARS] for t in chunk])
        for text, vec in zip(chunk, vectors, strict=True):
            cache[key(text)] = np.asarray(vec, dtype=np.float32)
        save_cache(args.cache, cache)
        done = i + len(chunk)
        print(f"{done}/{len(todo)} in {time.monotonic() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
