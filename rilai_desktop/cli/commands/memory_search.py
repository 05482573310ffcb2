"""`rilai memory search QUERY | --batch FILE`: one query, or a JSON-lines file of them
(every line checked before any search runs; one JSON line out per query)."""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.memory_checks import (
    check_choice,
    check_range,
    clip,
    model_installed,
    no_model,
    warn,
)
from rilai_desktop.cli.commands.output import emit_json
from rilai_desktop.errors import CategoryNotFoundError, MemoryInputError, RetrievalError
from rilai_desktop.jsonl import object_lines, read_text

if TYPE_CHECKING:
    from rilai_desktop.memory.manager import MemoryManager
    from rilai_desktop.memory.types import RetrievalResult

MODES = ("rag", "llm", "hybrid")
K_MAX = 100
MAX_BATCH_QUERY_CHARS = 10_000


class _Searcher:
    """One memory, many queries; hybrid falls back to RAG for good if the model fails."""

    def __init__(self, ctx: Context, mode: str) -> None:
        self.mode = mode
        self.warnings: list[str] = []
        with_models = mode != "rag"
        if with_models and not model_installed(ctx):
            if mode == "llm":
                raise no_model("--mode llm", ctx)
            with_models = False
            self.warnings.append(
                "no extraction model is installed: hybrid search cannot escalate (RAG only)"
            )
        self.manager: MemoryManager = ctx.memory(with_models=with_models)
        # load the embedder now, so search_time_ms is the search and not the model load
        self.manager.embed(["warm up"])

    def search(self, query: str, k: int, category: str | None) -> RetrievalResult:
        from rilai_desktop.llm.errors import ModelError

        try:
            result = self.manager.retrieve(query, mode=self.mode, k=k, category_filter=category)
            failed = self.manager.hybrid.last_error if self.mode == "hybrid" else None
            if failed is None:
                return result
            raise failed
        except (RetrievalError, ModelError) as exc:
            if self.mode != "hybrid":
                raise
            self.mode = "rag"  # do not pay the model's retries again on every query
            self.warnings.append(f"escalation failed, using RAG only: {exc.message}")
            return self.manager.retrieve(query, mode="rag", k=k, category_filter=category)


def _hits(result: RetrievalResult, *, with_category: bool) -> list[dict[str, Any]]:
    hits = []
    for item, score in zip(result.items, result.confidence_scores, strict=False):
        hit: dict[str, Any] = {
            "item_id": item.item_id,
            "content": item.content,
            "score": round(float(score), 6),
            "resource_id": item.source_resource_id,
            "turn_ids": list(item.source_turn_ids),
        }
        if with_category:
            hit["category"] = item.category
        hits.append(hit)
    return hits


def _read_batch(path: Path) -> list[tuple[str, str]]:
    """Every line checked before any search runs; a bad line fails the whole batch."""

    def bad(line_no: int, problem: str) -> MemoryInputError:
        return MemoryInputError(
            f"{path} line {line_no}: {problem}",
            context={"path": str(path), "line": line_no},
            recovery_suggestions=[
                'Each line is a JSON object: {"id": "q1", "query": "what does she like?"}',
                "No search was run; fix the line and run the command again",
            ],
        )

    text = read_text(path, MemoryInputError, bad)
    queries: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for line_no, obj in object_lines(text, bad):
        qid, query = obj.get("id"), obj.get("query")
        if not isinstance(qid, str) or not qid.strip():
            raise bad(line_no, '"id" is missing or not a non-empty string')
        if qid in seen:
            raise bad(line_no, f"duplicate id {qid!r} (also line {seen[qid]})")
        if not isinstance(query, str):
            raise bad(line_no, '"query" is missing or not a string')
        if not query.strip():
            raise bad(line_no, '"query" is empty')
        if len(query) > MAX_BATCH_QUERY_CHARS:
            raise bad(line_no, f'"query" has {len(query):,} characters (limit 10,000)')
        try:
            query.encode("utf-8")
        except UnicodeEncodeError:
            raise bad(line_no, '"query" contains a lone surrogate (invalid \\u escape)') from None
        seen[qid] = line_no
        queries.append((qid, query))
    if not queries:
        raise MemoryInputError(f"{path}: no queries in the file")
    return queries


def search(args: Namespace, ctx: Context) -> int:
    mode = check_choice("--mode", args.mode, MODES)
    k = check_range("--k", args.k, K_MAX)
    if args.batch is not None and args.query is not None:
        raise MemoryInputError(
            "give either QUERY or --batch FILE, not both",
            recovery_suggestions=["rilai memory search 'QUERY'", "rilai memory search --batch F"],
        )
    if args.batch is None and args.query is None:
        raise MemoryInputError(
            "nothing to search for: give a QUERY or --batch FILE",
            recovery_suggestions=["rilai memory search 'what does she like?'"],
        )
    if args.batch is not None:
        return _search_batch(Path(args.batch), mode, k, args.category, ctx)
    searcher = _Searcher(ctx, mode)
    result = searcher.search(args.query, k, args.category)
    hits = _hits(result, with_category=True)
    if ctx.json:
        emit_json(
            {
                "query": args.query,
                "mode_used": result.mode_used.value,
                "escalated": result.escalated,
                "total_found": result.total_found,
                "search_time_ms": round(result.search_time_ms, 3),
                "hits": hits,
                "warnings": searcher.warnings,
            }
        )
        return 0
    for w in searcher.warnings:
        warn(w)
    how = f"mode {result.mode_used.value}" + (", escalated" if result.escalated else "")
    print(
        f"{len(hits)} of {result.total_found} found for {args.query!r}"
        f" ({how}, {result.search_time_ms:.1f} ms)"
    )
    for n, hit in enumerate(hits, 1):
        print(f"{n:>3}. [{hit['score']:.3f}] {clip(hit['content'])}")
        where = f"{hit['item_id']}  turns: {', '.join(hit['turn_ids']) or '-'}"
        if hit["category"]:
            where += f"  category: {hit['category']}"
        print(f"     {where}")
    return 0


def _search_batch(path: Path, mode: str, k: int, category: str | None, ctx: Context) -> int:
    queries = _read_batch(path)
    searcher = _Searcher(ctx, mode)
    if category is not None:  # fail before the first line is printed, not after
        names = [c.name for c in searcher.manager.list_categories()]
        if category not in names:
            raise CategoryNotFoundError(category, names)
    shown = 0
    out = sys.stdout
    for qid, query in queries:
        result = searcher.search(query, k, category)
        line = {
            "id": qid,
            "hits": _hits(result, with_category=False),
            "search_time_ms": round(result.search_time_ms, 3),
            "mode_used": result.mode_used.value,
            "escalated": result.escalated,
        }
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        for w in searcher.warnings[shown:]:
            warn(w)
        shown = len(searcher.warnings)
    return 0
