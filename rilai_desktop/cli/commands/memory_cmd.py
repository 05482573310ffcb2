"""`rilai memory ...`: feed, search, inspect and correct the memory from the terminal.

ingest FILE · search QUERY | --batch FILE · stats · categories · show ITEM · forget ITEM ·
export DIR · rebuild-index · kb search|upsert · category show NAME (docs/memory.md).

Only the commands that need a model ask for one: `search --mode rag`, `ingest --extract
rules` and the inspection commands open memory with ``with_models=False`` and never touch
llama.cpp. When no model file is installed for the extraction role, hybrid search and
`--extract both` run without one (and say so) instead of failing on the first escalation.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.clear import _confirm
from rilai_desktop.cli.commands.output import emit_json, indent, table
from rilai_desktop.errors import (
    CategoryNotFoundError,
    MemoryInputError,
    ResourceNotFoundError,
    RetrievalError,
)

if TYPE_CHECKING:
    from rilai_desktop.memory.manager import ExtractMode, MemoryManager
    from rilai_desktop.memory.types import MemoryItem, RetrievalResult

MODES = ("rag", "llm", "hybrid")
EXTRACT_MODES = ("rules", "llm", "both")
K_MAX = 100
KB_LIMIT_MAX = 100
MAX_BATCH_QUERY_CHARS = 10_000


def _clip(text: str, width: int = 100) -> str:
    s = text.replace("\n", " ")
    return s if len(s) <= width else s[: width - 1] + "…"


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


# ── models: only when a command needs one, and only when one is installed ─────


def _model_installed(ctx: Context, role: str = "extraction") -> bool:
    """Is a GGUF file present for ``role``'s tier (or a smaller one the router falls back to)?

    A cheap file check, so a missing model is a warning up front rather than a load error
    (after retries) in the middle of a search or an ingest.
    """
    from rilai_desktop.llm.errors import ModelError
    from rilai_desktop.llm.manifest import FALLBACK_ORDER, load_manifest

    settings = ctx.loaded.settings
    tier = str(getattr(settings.roles, role))
    try:
        manifest = load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)
    except ModelError:
        return False
    order = FALLBACK_ORDER.get(tier, (tier,)) if settings.llm.fallback else (tier,)
    for candidate in order:
        try:
            entry = manifest.for_tier(candidate)
        except ModelError:
            continue
        if entry.path_in(ctx.paths.models_dir).is_file():
            return True
    return False


def _no_model(what: str, ctx: Context) -> MemoryInputError:
    tier = ctx.loaded.settings.roles.extraction
    return MemoryInputError(
        f"{what} needs the extraction model ({tier} tier), and it is not installed",
        recovery_suggestions=[
            f"Install it: rilai models install {tier}",
            "Or run without a model: --mode rag (search) or --extract rules (ingest)",
        ],
    )


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise MemoryInputError(
            f"{name} must be {', '.join(choices[:-1])} or {choices[-1]}, got {value!r}",
            recovery_suggestions=[f"Use {name} " + "|".join(choices)],
        )
    return value


def _check_range(name: str, value: int, high: int) -> int:
    if not 1 <= value <= high:
        raise MemoryInputError(
            f"{name} must be from 1 to {high}, got {value}",
            recovery_suggestions=[f"Use 1 ≤ {name.lstrip('-')} ≤ {high}"],
        )
    return value


# ── ingest ────────────────────────────────────────────────────────────────────


def ingest(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.conversation import is_user_speaker
    from rilai_desktop.memory.transcript import load_transcript, sessions_in_date_order
    from rilai_desktop.memory.types import Turn

    mode: ExtractMode = ctx.loaded.settings.memory.extract
    if args.extract is not None:
        mode = _check_choice("--extract", args.extract, EXTRACT_MODES)  # type: ignore[assignment]
    # the whole file is read and validated before memory (or a model) is opened
    transcript = load_transcript(args.file)
    warnings: list[str] = []
    with_models = mode != "rules"
    if with_models and not _model_installed(ctx):
        if mode == "llm":
            raise _no_model("--extract llm", ctx)
        with_models, mode = False, "rules"
        warnings.append("no extraction model is installed: extracting with the rules only")
    for w in warnings:
        if not ctx.json:
            _warn(w)
    manager = ctx.memory(with_models=with_models)
    sessions = sessions_in_date_order(transcript)
    if not ctx.json:
        print(
            f"Ingesting {transcript.title!r} from {args.file}: {len(sessions)} session(s),"
            f" {transcript.turn_count} turn(s), extract {mode}"
        )
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    batch = [
        (
            [
                Turn(
                    id=t.id,
                    speaker=t.speaker,
                    text=t.text,
                    at=session.date,
                    is_user=is_user_speaker(t.speaker),
                )
                for t in session.turns
            ],
            {
                "title": transcript.title,
                "session_id": session.id,
                "date": session.date.isoformat(),
            },
        )
        for session in sessions
    ]
    # one call: every session is extracted, then all drafts are embedded in one pass
    results = manager.ingest_sessions(batch, mode=mode)
    for session, (turns, _meta), result in zip(sessions, batch, results, strict=True):
        row = {
            "session_id": session.id,
            "date": session.date.isoformat(),
            "resource_id": result.resource.resource_id,
            "turns": len(turns),
            "stored": len(result.stored),
            "records": len(result.records),
            "reinforced": len(result.reinforced),
            "invalidated": len(result.invalidated),
            "item_ids": [i.item_id for i in [*result.stored, *result.reinforced]],
            "warnings": list(result.warnings),
        }
        rows.append(row)
        if not ctx.json:
            print(
                f"  {session.id}  {session.date.isoformat()}  {row['turns']} turns:"
                f" {row['stored']} stored, {row['reinforced']} reinforced,"
                f" {row['invalidated']} invalidated, {row['records']} turn records"
            )
            for w in result.warnings:
                print(f"    warning: {w}")
    elapsed = round(time.perf_counter() - start, 3)
    totals = {
        "sessions": len(rows),
        "turns": sum(r["turns"] for r in rows),
        "stored": sum(r["stored"] for r in rows),
        "records": sum(r["records"] for r in rows),
        "reinforced": sum(r["reinforced"] for r in rows),
        "invalidated": sum(r["invalidated"] for r in rows),
        "warnings": sum(len(r["warnings"]) for r in rows) + len(warnings),
    }
    if ctx.json:
        emit_json(
            {
                "file": str(args.file),
                "title": transcript.title,
                "extract": mode,
                "sessions": rows,
                "totals": totals,
                "warnings": warnings,
                "elapsed_s": elapsed,
            }
        )
    else:
        print(
            f"Total: {totals['sessions']} session(s), {totals['turns']} turn(s):"
            f" {totals['stored']} stored, {totals['reinforced']} reinforced,"
            f" {totals['invalidated']} invalidated, {totals['records']} turn records"
            f" in {elapsed:.2f} s"
        )
    return 0


# ── search ────────────────────────────────────────────────────────────────────


class _Searcher:
    """One memory, many queries; hybrid falls back to RAG for good if the model fails."""

    def __init__(self, ctx: Context, mode: str) -> None:
        self.mode = mode
        self.warnings: list[str] = []
        with_models = mode != "rag"
        if with_models and not _model_installed(ctx):
            if mode == "llm":
                raise _no_model("--mode llm", ctx)
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

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise MemoryInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise MemoryInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_no = raw[: exc.start].count(b"\n") + 1
        raise bad(line_no, "not UTF-8 text") from None
    queries: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise bad(line_no, f"not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise bad(line_no, "expected a JSON object")
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
    mode = _check_choice("--mode", args.mode, MODES)
    k = _check_range("--k", args.k, K_MAX)
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
        _warn(w)
    how = f"mode {result.mode_used.value}" + (", escalated" if result.escalated else "")
    print(
        f"{len(hits)} of {result.total_found} found for {args.query!r}"
        f" ({how}, {result.search_time_ms:.1f} ms)"
    )
    for n, hit in enumerate(hits, 1):
        print(f"{n:>3}. [{hit['score']:.3f}] {_clip(hit['content'])}")
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
            _warn(w)
        shown = len(searcher.warnings)
    return 0


# ── inspection and correction ─────────────────────────────────────────────────


def stats(args: Namespace, ctx: Context) -> int:
    s = ctx.memory(with_models=False).get_stats()
    if ctx.json:
        emit_json(s.model_dump(mode="json"))
        return 0
    from rilai_desktop.cli.commands.output import human_bytes

    print(f"resources      {s.total_resources}")
    print(f"items          {s.total_items}")
    print(f"categories     {s.total_categories}")
    print(f"index size     {s.vector_index_size}")
    print(f"storage        {human_bytes(s.storage_bytes)}")
    print(f"last extracted {s.last_extraction_at or '-'}")
    print(f"consolidated   {s.last_consolidation_at or '-'}")
    if s.resources_by_type:
        print(indent(table(sorted(s.resources_by_type.items()), ["resource type", "count"])))
    if s.items_by_category:
        print(indent(table(sorted(s.items_by_category.items()), ["category", "items"])))
    return 0


def categories(args: Namespace, ctx: Context) -> int:
    cats = ctx.memory(with_models=False).list_categories()
    rows: list[dict[str, Any]] = [
        {
            "name": c.name,
            "description": c.description,
            "item_count": len(c.item_ids),
            "updated_at": c.updated_at.isoformat(),
        }
        for c in cats
    ]
    if ctx.json:
        emit_json(rows)
    elif not rows:
        print("No categories yet (they appear as memory items are extracted).")
    else:
        print(
            table(
                [(r["name"], r["item_count"], _clip(r["description"], 70)) for r in rows],
                ["name", "items", "description"],
            )
        )
    return 0


def _unknown_item(item_id: str) -> MemoryInputError:
    return MemoryInputError(
        f"no memory item {item_id!r}",
        context={"item_id": item_id},
        recovery_suggestions=[
            "Find item ids with `rilai memory search QUERY` (each hit shows its item id)",
            "Item ids look like item_0f8c…; `rilai memory export DIR` lists them all",
        ],
    )


def _require_item(manager: MemoryManager, item_id: str) -> MemoryItem:
    item = manager.get_item(item_id)
    if item is None:
        raise _unknown_item(item_id)
    return item


def _source_turns(manager: MemoryManager, item: MemoryItem) -> list[dict[str, Any]]:
    from rilai_desktop.memory.conversation import resource_turns

    try:
        resource = manager.get_resource(item.source_resource_id)
    except ResourceNotFoundError:
        return []
    wanted = set(item.source_turn_ids)
    return [
        {"id": t.id, "speaker": t.speaker, "text": t.text}
        for t in resource_turns(resource)
        if t.id in wanted
    ]


def show(args: Namespace, ctx: Context) -> int:
    manager = ctx.memory(with_models=False)
    item = _require_item(manager, args.item)
    data = item.model_dump(mode="json", exclude={"embedding"})
    data["is_valid"] = item.is_valid
    data["source_turns"] = _source_turns(manager, item)
    if ctx.json:
        emit_json(data)
        return 0
    turns = data.pop("source_turns")
    width = max(len(k) for k in data)
    for key, value in data.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        print(f"{key:<{width}}  {'-' if shown is None or shown == '' else shown}")
    if turns:
        print("source turns:")
        for t in turns:
            print(f"  [{t['id']}] {t['speaker']}: {_clip(t['text'], 200)}")
    return 0


def forget(args: Namespace, ctx: Context) -> int:
    manager = ctx.memory(with_models=False)
    item = _require_item(manager, args.item)
    if not _confirm(f"Forget {item.item_id}: {_clip(item.content, 80)!r}?", args.yes):
        print("Nothing forgotten.")
        return 1
    manager.forget_item(item.item_id)
    if item.category:  # the category page must stop citing it
        with contextlib.suppress(CategoryNotFoundError):
            manager.refresh_category(item.category)
    data = {
        "forgotten": item.item_id,
        "content": item.content,
        "category": item.category,
        "source_resource_id": item.source_resource_id,
        "turn_ids": list(item.source_turn_ids),
    }
    if ctx.json:
        emit_json(data)
    else:
        print(f"Forgot {item.item_id}: {_clip(item.content)}")
    return 0


def export(args: Namespace, ctx: Context) -> int:
    folder = Path(args.dir)
    if folder.exists() and not folder.is_dir():
        raise MemoryInputError(
            f"{folder} exists and is not a directory",
            recovery_suggestions=["Give a new or an existing directory to export into"],
        )
    counts = ctx.memory(with_models=False).export(folder)
    if ctx.json:
        emit_json({"dir": str(folder), **counts})
    else:
        print(
            f"Exported {counts.get('resources', 0)} resources, {counts.get('items', 0)} items"
            f" and {counts.get('categories', 0)} categories to {folder}"
        )
    return 0


def rebuild_index(args: Namespace, ctx: Context) -> int:
    manager = ctx.memory(with_models=False)
    start = time.perf_counter()
    n = manager.rebuild_index()
    ms = round((time.perf_counter() - start) * 1000, 3)
    if ctx.json:
        emit_json({"item_count": n, "rebuild_time_ms": ms})
    else:
        print(f"Rebuilt the vector index: {n} items in {ms:.1f} ms")
    return 0


def category(args: Namespace, ctx: Context) -> int:
    manager = ctx.memory(with_models=False)
    cats = manager.list_categories()
    found = next((c for c in cats if c.name == args.name), None)
    if found is None:
        raise CategoryNotFoundError(args.name, [c.name for c in cats])
    if ctx.json:
        emit_json(
            {
                "name": found.name,
                "description": found.description,
                "item_ids": found.item_ids,
                "updated_at": found.updated_at.isoformat(),
                "file": str(ctx.paths.categories_dir / f"{found.name}.md"),
                "markdown": found.markdown_content,
            }
        )
    else:
        sys.stdout.write(found.markdown_content.rstrip("\n") + "\n")
    return 0


# ── knowledge bases ───────────────────────────────────────────────────────────


def _kbs(ctx: Context) -> Any:
    from rilai_desktop.memory.knowledge_bases import KnowledgeBases

    manager = ctx.memory(with_models=False)
    return KnowledgeBases(ctx.event_log(), manager.embedder)


def kb_search(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.knowledge_bases import check_kb_name

    check_kb_name(args.kb_name)
    limit = _check_range("--limit", args.limit, KB_LIMIT_MAX)
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
        _warn(w)
    if not rows:
        print(f"No hits in {args.kb_name}.")
    else:
        print(
            table(
                [
                    (n, f"{r['score']:.3f}", r["document_id"], _clip(r["content_snippet"], 70))
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

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise MemoryInputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise MemoryInputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise MemoryInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    texts: dict[str, str] = {}
    vectors: list[tuple[int, dict[str, Any]]] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise bad(line_no, f"not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise bad(line_no, "expected a JSON object")
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


HANDLERS: dict[str, Callable[[Namespace, Context], int]] = {
    "ingest": ingest,
    "search": search,
    "stats": stats,
    "categories": categories,
    "show": show,
    "forget": forget,
    "export": export,
    "rebuild-index": rebuild_index,
}


def run(args: Namespace, ctx: Context) -> int:
    if args.action == "kb":
        return kb_search(args, ctx) if args.kb_action == "search" else kb_upsert(args, ctx)
    if args.action == "category":
        return category(args, ctx)
    return HANDLERS[args.action](args, ctx)
