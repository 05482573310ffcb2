"""What the `rilai memory ...` commands share: argument checks, warnings, and whether a
model is installed for a command that would need one."""

from __future__ import annotations

import sys

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.errors import MemoryInputError


def clip(text: str, width: int = 100) -> str:
    s = text.replace("\n", " ")
    return s if len(s) <= width else s[: width - 1] + "…"


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


# ── models: only when a command needs one, and only when one is installed ─────


def model_installed(ctx: Context, role: str = "extraction") -> bool:
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


def no_model(what: str, ctx: Context) -> MemoryInputError:
    tier = ctx.loaded.settings.roles.extraction
    return MemoryInputError(
        f"{what} needs the extraction model ({tier} tier), and it is not installed",
        recovery_suggestions=[
            f"Install it: rilai models install {tier}",
            "Or run without a model: --mode rag (search) or --extract rules (ingest)",
        ],
    )


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise MemoryInputError(
            f"{name} must be {', '.join(choices[:-1])} or {choices[-1]}, got {value!r}",
            recovery_suggestions=[f"Use {name} " + "|".join(choices)],
        )
    return value


def check_range(name: str, value: int, high: int) -> int:
    if not 1 <= value <= high:
        raise MemoryInputError(
            f"{name} must be from 1 to {high}, got {value}",
            recovery_suggestions=[f"Use 1 ≤ {name.lstrip('-')} ≤ {high}"],
        )
    return value
