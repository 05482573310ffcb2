"""`rilai status`: paths, database size, event counts, configured models, versions."""

from __future__ import annotations

import platform
import sqlite3
from argparse import Namespace
from importlib import metadata
from pathlib import Path
from typing import Any

from rilai_desktop import __version__
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, human_bytes, indent, table
from rilai_desktop.paths import Paths

VERSIONED = (
    "pydantic",
    "torch",
    "llama-cpp-python",
    "sentence-transformers",
    "faiss-cpu",
    "PySide6-Essentials",
    "apscheduler",
    "sqlmodel",
)


def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {
        "rilai-desktop": __version__,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
    }
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def configured_models(paths: Paths) -> list[dict[str, Any]]:
    """Each tier's model and whether its file is present (no hashing: that is `verify`)."""
    from rilai_desktop.llm.errors import ModelError
    from rilai_desktop.llm.manifest import TIERS, load_manifest

    try:
        manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    except ModelError:
        return []
    rows = []
    for tier in TIERS:
        if tier not in manifest.tiers:
            continue
        entry = manifest.for_tier(tier)
        file = entry.path_in(paths.models_dir)
        rows.append({"tier": tier, "model": entry.id, "file": str(file), "present": file.is_file()})
    return rows


def db_size(db_path: Path) -> int:
    return sum(p.stat().st_size for p in (db_path, Path(f"{db_path}-wal")) if p.exists())


def run(args: Namespace, ctx: Context) -> int:
    log = ctx.event_log()
    info: dict[str, Any] = {
        "paths": ctx.paths.as_dict(),
        "database": {
            "size_bytes": db_size(ctx.paths.db_path),
            "events": log.count(),
            "sessions": len(log.session_ids()),
            "last_turn_id": log.last_turn_id(),
            "events_by_kind": log.counts_by_kind(),
        },
        "models": configured_models(ctx.paths),
        "versions": package_versions(),
    }
    if ctx.json:
        emit_json(info)
        return 0
    print("Rilai status")
    print("\nPaths")
    for key, value in info["paths"].items():
        print(f"  {key:<14} {value}")
    db = info["database"]
    print("\nDatabase")
    print(f"  size           {human_bytes(db['size_bytes'])}")
    print(f"  events         {db['events']} in {db['sessions']} session(s)")
    print(f"  last turn id   {db['last_turn_id']}")
    if db["events_by_kind"]:
        print(indent(table(sorted(db["events_by_kind"].items()), ["kind", "count"])))
    print("\nModels")
    if info["models"]:
        rows = [
            (m["tier"], m["model"], "present" if m["present"] else "missing", m["file"])
            for m in info["models"]
        ]
        print(indent(table(rows, ["tier", "model", "file", "path"])))
    else:
        print(f"  no model manifest found at {ctx.paths.manifest_file}")
    print("\nVersions")
    for name, version in info["versions"].items():
        print(f"  {name:<22} {version or 'not installed'}")
    return 0
