"""`rilai memory kb search|upsert`: the knowledge bases (named point collections) from the
terminal; an upsert file is JSON lines, every line checked before anything is written."""

from __future__ import annotations

import time
from argparse import Namespace
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.memory_checks import check_range, clip, warn
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.jsonl import object_lines, read_text

KB_LIMIT_MAX = 100


def _kbs(ctx: Context) -> Any:
    from rilai_desktop.memory.knowledge_bases import KnowledgeBases

    manager = ctx.memory(with_models=False)
    return KnowledgeBases(ctx.event_log(), manager.embedder)


def kb_search(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.knowledge_bases import check_kb_name

    check_kb_name(args.kb_name)
    limit = check_range("--limit", args.limit, KB_LIMIT_MAX)
    kbs = _kbs(ctx)
    start = time.perf_counter()
    hits = kbs.semantic_search(args.query, args.kb_name, limit)
    ms = round((time.perf_counter() - start) * 1000, 3)
    rows = [h.model_dump(mode="json") for h in hits]
    warnings = []
    skipped = kbs.skipped.get(args.kb_name, 0)
    if skipped:
        warnings.append(
            f"{skipped} point(s) in {args.kb_name} have another dimension than the embedder's"
            f" ({kbs.dimension}) and were left out; upsert them again"
        )
    if ctx.json:
        emit_json(
            {
                "kb_name": args.kb_name,
                "query": args.query,
                "hits": rows,
                "search_time_ms": ms,
                "warnings": warnings,
            }
        )
        return 0
    for w in warnings:
        warn(w)
    if not rows:
        print(f"No hits in {args.kb_name}.")
    else:
        print(
            table(
                [
                    (n, f"{r['score']:.3f}", r["document_id"], clip(r["content_snippet"], 70))
                    for n, r in enumerate(rows, 1)
                ],
                ["#", "score", "document", "snippet"],
            )
        )
    return 0


def _read_points(path: Path) -> tuple[dict[str, str], list[tuple[int, dict[str, Any]]]]:
    """Text lines and vector lines, every line checked before anything is written."""

    def bad(line_no: int, problem: str) -> MemoryInputError:
        return MemoryInputError(
            f"{path} line {line_no}: {problem}",
            context={"path": str(path), "line": line_no},
            recovery_suggestions=[
                'Each line is {"id": str, "text": str} or '
                '{"id": str, "vector": [float, ...], "payload": {str: str}}',
                "Nothing was written; fix the line and run the command again",
            ],
        )

    text = read_text(path, MemoryInputError, bad)
    texts: dict[str, str] = {}
    vectors: list[tuple[int, dict[str, Any]]] = []
    for line_no, obj in object_lines(text, bad):
        pid = obj.get("id")
        if not isinstance(pid, str) or not pid.strip():
            raise bad(line_no, '"id" is missing or not a non-empty string')
        has_text, has_vector = "text" in obj, "vector" in obj
        if has_text == has_vector:
            raise bad(line_no, 'give exactly one of "text" or "vector"')
        if has_text:
            if set(obj) - {"id", "text"}:
                raise bad(line_no, f"unexpected keys {sorted(set(obj) - {'id', 'text'})}")
            if not isinstance(obj["text"], str) or not obj["text"].strip():
                raise bad(line_no, '"text" must be a non-empty string')
            texts[pid] = obj["text"]
        else:
            vector = obj["vector"]
            if not isinstance(vector, list) or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in vector
            ):
                raise bad(line_no, '"vector" must be a list of numbers')
            vectors.append((line_no, obj))
    return texts, vectors


def kb_upsert(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.knowledge_bases import check_kb_name

    check_kb_name(args.kb_name)
    path = Path(args.file)
    texts, vectors = _read_points(path)
    if not texts and not vectors:
        raise MemoryInputError(f"{path}: no points in the file")
    kbs = _kbs(ctx)
    for line_no, obj in vectors:  # name the line, before anything is written
        if len(obj["vector"]) != kbs.dimension:
            raise MemoryInputError(
                f"{path} line {line_no}: the vector has dimension {len(obj['vector'])},"
                f" the embedder's is {kbs.dimension}",
                recovery_suggestions=[f"Give vectors of length {kbs.dimension}, or use text"],
            )
    if not vectors:
        result = kbs.upsert_texts(args.kb_name, texts)
    else:
        # one all-or-nothing write: text lines are embedded here like upsert_texts does
        points = [obj for _, obj in vectors]
        if texts:
            embedded = kbs.embedder.embed(list(texts.values()))
            points = [
                {"id": pid, "vector": vec.tolist(), "payload": {"content": text}}
                for (pid, text), vec in zip(texts.items(), embedded, strict=True)
            ] + points
        result = kbs.upsert_vectors(args.kb_name, points)
    data = {
        "kb_name": args.kb_name,
        "success": result.success,
        "upserted_count": result.upserted_count,
        "texts": len(texts),
        "vectors": len(vectors),
    }
    if ctx.json:
        emit_json(data)
    else:
        print(
            f"Upserted {result.upserted_count} point(s) into {args.kb_name}"
            f" ({len(texts)} text, {len(vectors)} vector line(s))"
        )
    return 0
