"""`rilai memory ...`: feed, search, inspect and correct the memory from the terminal.

ingest FILE · search QUERY | --batch FILE · stats · categories · show ITEM · forget ITEM ·
export|import FOLDER · rebuild-index · kb search|upsert · category show NAME (docs/memory.md); the
person's controls over every entry (list, show KIND ID, edit, delete, pause, pin,
forget-all, paused) are in ``memory_controls_cmd``.

Only the commands that need a model ask for one: `search --mode rag`, `ingest --extract
rules` and the inspection commands open memory with ``with_models=False`` and never touch
llama.cpp. When no model file is installed for the extraction role, hybrid search and
`--extract both` run without one (and say so) instead of failing on the first escalation.

This module holds ingest and the inspection commands; search is in ``memory_search``, the
knowledge bases in ``memory_kb`` and the checks they share in ``memory_checks``.
"""

from __future__ import annotations

import contextlib
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rilai_desktop.cli.commands import memory_controls_cmd, memory_transfer
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.clear import _confirm
from rilai_desktop.cli.commands.memory_checks import (
    check_choice,
    clip,
    model_installed,
    no_model,
    warn,
)
from rilai_desktop.cli.commands.memory_kb import kb_search, kb_upsert
from rilai_desktop.cli.commands.memory_search import search
from rilai_desktop.cli.commands.output import emit_json, indent, table
from rilai_desktop.errors import CategoryNotFoundError, MemoryInputError, ResourceNotFoundError

if TYPE_CHECKING:
    from rilai_desktop.memory.manager import ExtractMode, MemoryManager
    from rilai_desktop.memory.types import MemoryItem

EXTRACT_MODES = ("rules", "llm", "both")


# ── ingest ────────────────────────────────────────────────────────────────────


def ingest(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.transcript import (
        load_transcript,
        session_batches,
        sessions_in_date_order,
    )

    mode: ExtractMode = ctx.loaded.settings.memory.extract
    if args.extract is not None:
        mode = check_choice("--extract", args.extract, EXTRACT_MODES)  # type: ignore[assignment]
    # the whole file is read and validated before memory (or a model) is opened
    transcript = load_transcript(args.file)
    warnings: list[str] = []
    with_models = mode != "rules"
    if with_models and not model_installed(ctx):
        if mode == "llm":
            raise no_model("--extract llm", ctx)
        with_models, mode = False, "rules"
        warnings.append("no extraction model is installed: extracting with the rules only")
    for w in warnings:
        if not ctx.json:
            warn(w)
    manager = ctx.memory(with_models=with_models)
    sessions = sessions_in_date_order(transcript)
    if not ctx.json:
        print(
            f"Ingesting {transcript.title!r} from {args.file}: {len(sessions)} session(s),"
            f" {transcript.turn_count} turn(s), extract {mode}"
        )
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    batch = session_batches(transcript, sessions)
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
                [(r["name"], r["item_count"], clip(r["description"], 70)) for r in rows],
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


def _ref(args: Namespace) -> str | None:
    """``show ITEM`` / ``forget ITEM`` (one id: an item) or None for ``KIND ID``."""
    if len(args.ref) == 1:
        return str(args.ref[0])
    if len(args.ref) != 2:
        raise MemoryInputError(
            "give KIND ID (item|fact|episode|goal and its id), or an item id alone"
        )
    return None


def show(args: Namespace, ctx: Context) -> int:
    item_id = _ref(args)
    if item_id is None:
        return memory_controls_cmd.show_entry(args, ctx)
    manager = ctx.memory(with_models=False)
    item = _require_item(manager, item_id)
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
            print(f"  [{t['id']}] {t['speaker']}: {clip(t['text'], 200)}")
    return 0


def forget(args: Namespace, ctx: Context) -> int:
    """`forget ITEM` (as before) or `delete|forget KIND ID` (any kind)."""
    item_id = _ref(args)
    if item_id is None:
        return memory_controls_cmd.delete(args, ctx)
    manager = ctx.memory(with_models=False)
    item = _require_item(manager, item_id)
    if not _confirm(f"Forget {item.item_id}: {clip(item.content, 80)!r}?", args.yes):
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
        print(f"Forgot {item.item_id}: {clip(item.content)}")
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


def rebuild(args: Namespace, ctx: Context) -> int:
    """The memory projections from scratch: memory_controls replayed from the whole log (the
    person's pauses and pins, each entry's last use), then the vector index rebuilt from the
    tables without the paused items. What a restart shows is what this rebuilds."""
    manager = ctx.memory(with_models=False)
    start = time.perf_counter()
    counts = manager.rebuild_controls(ctx.event_log().replay_all())
    ms = round((time.perf_counter() - start) * 1000, 3)
    report = {
        **counts,
        "indexed_items": manager.get_stats().vector_index_size,
        "rebuild_time_ms": ms,
    }
    if ctx.json:
        emit_json(report)
    else:
        print(
            f"Replayed the log: {counts.get('paused', 0)} paused, {counts.get('pinned', 0)} "
            f"pinned; the vector index holds {report['indexed_items']} items ({ms:.1f} ms)"
        )
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


HANDLERS: dict[str, Callable[[Namespace, Context], int]] = {
    "ingest": ingest,
    "search": search,
    "stats": stats,
    "categories": categories,
    "show": show,
    **memory_controls_cmd.HANDLERS,
    "forget": forget,
    "delete": forget,  # `delete ITEM` or `delete KIND ID`; `forget` is its alias
    "export": memory_transfer.export,
    "import": memory_transfer.import_,
    "rebuild-index": rebuild_index,
    "rebuild": rebuild,
}


def run(args: Namespace, ctx: Context) -> int:
    if args.action == "kb":
        return kb_search(args, ctx) if args.kb_action == "search" else kb_upsert(args, ctx)
    if args.action == "category":
        return category(args, ctx)
    return HANDLERS[args.action](args, ctx)
