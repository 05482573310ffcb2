"""Step 2: each tier's GGUF verifies against the manifest and answers a 5-token prompt.

Every distinct file is hashed in full (``verify(use_cache=False, remember=False)``: the
``.verified.json`` cache is neither trusted nor written) and then loaded through the
model router the app uses (``app.build.build_router``: the same llama.cpp options and
thread counts), with fallback off so a tier is answered by its own file. A tier that
shares a file with an earlier tier reports that tier's result.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from rilai_desktop.app.self_test.report import (
    CheckResult,
    fail,
    fix_of,
    message_of,
    ok,
    skip,
    timed,
)
from rilai_desktop.config import Settings
from rilai_desktop.contracts.llm import Completion
from rilai_desktop.errors import RilaiError
from rilai_desktop.llm.installer import HashFile, Verification, sha256_of, verify
from rilai_desktop.llm.manifest import TIERS, ModelEntry, load_manifest
from rilai_desktop.llm.router import ModelRouter
from rilai_desktop.paths import Paths

RouterFactory = Callable[[Paths, Settings], ModelRouter]
SMOKE_PROMPT = "Say hello in one short sentence."
SMOKE_TOKENS = 5


def ships_models(models_dir: Path) -> bool:
    return models_dir.is_dir() and any(models_dir.glob("*.gguf"))


def install_fix(tier: str, *, frozen: bool, models_dir: Path) -> str:
    """How this installation gets a tier's file back."""
    own_file = f"rilai models add FILE.gguf --tier {tier}"
    if not frozen:
        return f"rilai models install {tier}"
    if not ships_models(models_dir):
        return (
            "this build ships no models: install the release with models, "
            f"or point the tier at a GGUF: {own_file}"
        )
    return f"the bundle's model file is missing or damaged: reinstall Rilai, or {own_file}"


def mismatch_fix(tier: str, entry: ModelEntry, v: Verification, *, frozen: bool) -> str:
    if entry.source.kind == "user_file":
        return f"the file changed since it was added: rilai models add {v.path} --tier {tier}"
    if frozen:
        return install_fix(tier, frozen=True, models_dir=v.path.parent)
    return f"delete {v.path} and run `rilai models install {tier}`"


def _mib(size: int | None) -> str:
    return f"{(size or 0) / 2**20:.0f} MiB"


def smoke(router: ModelRouter, tier: str) -> tuple[Completion, float, float]:
    """(completion, seconds to load, seconds to answer) for ``SMOKE_TOKENS`` tokens."""
    t0 = time.perf_counter()
    model = router.for_tier(tier)
    t1 = time.perf_counter()
    result = model.complete(
        [{"role": "user", "content": SMOKE_PROMPT}], max_tokens=SMOKE_TOKENS, temperature=0.0
    )
    if not isinstance(result, Completion):  # not asked to stream; a port that did is wrong
        raise TypeError(f"the model returned {type(result).__name__}, not a Completion")
    return result, t1 - t0, time.perf_counter() - t1


def check_tier(
    tier: str,
    entry: ModelEntry,
    models_dir: Path,
    router: Callable[[], ModelRouter] | None,
    *,
    frozen: bool,
    hash_file: HashFile,
    no_smoke_because: str = "",
) -> CheckResult:
    """One tier's file: present, size and sha256, then (``router`` given) the smoke.
    Without a router the tier is ok (--quick), or skipped for ``no_smoke_because``."""
    name = f"model:{tier}"
    t0 = time.perf_counter()
    v = verify(entry, models_dir, use_cache=False, remember=False, hash_file=hash_file)
    hashed = time.perf_counter() - t0
    if not v.exists:
        return fail(
            name,
            f"{entry.id} is not installed ({v.path})",
            install_fix(tier, frozen=frozen, models_dir=models_dir),
        )
    if not v.ok:
        want = f"{entry.size} bytes, sha256 {(entry.sha256 or '?')[:12]}…"
        got = f"{v.size} bytes, sha256 {(v.sha256 or 'not read')[:12]}…"
        return fail(
            name,
            f"{v.path} does not match the manifest: expected {want}, found {got}",
            mismatch_fix(tier, entry, v, frozen=frozen),
        )
    sha = "sha256 ok" if entry.sha256 else f"custom file, sha256 {(v.sha256 or '')[:12]}…"
    detail = f"{v.path.name}, {_mib(v.size)}, {sha} ({hashed:.1f} s)"
    if router is None and no_smoke_because:
        return skip(name, f"{detail}; the answer needs {no_smoke_because}")
    if router is None:
        return ok(name, detail + "; answer skipped (--quick)")
    try:
        completion, load_s, answer_s = smoke(router(), tier)
    except (RilaiError, ValueError, RuntimeError, OSError) as exc:
        return fail(
            name,
            f"{detail}; llama.cpp could not answer: {message_of(exc)}",
            fix_of(exc, mismatch_fix(tier, entry, v, frozen=frozen)),
        )
    tokens = completion.usage.completion_tokens
    if not completion.text.strip() and tokens == 0:
        return fail(
            name,
            f"{detail}; the model loaded but generated nothing",
            mismatch_fix(tier, entry, v, frozen=frozen),
        )
    return ok(
        name,
        f"{detail}; answered {completion.text.strip()[:40]!r} "
        f"({tokens} tokens in {answer_s:.2f} s, loaded in {load_s:.1f} s)",
    )


def check_models(
    paths: Paths,
    settings: Settings,
    *,
    frozen: bool,
    smoke_test: bool,
    make_router: RouterFactory,
    hash_file: HashFile = sha256_of,
    no_smoke_because: str = "",
) -> Iterator[CheckResult]:
    """One check per tier (``model:small|medium|large``), each as it finishes; a manifest
    that cannot be read is one failed ``models`` check. ``no_smoke_because``: why the
    answers cannot run (a failed library): the verified tiers are skipped with it."""
    try:
        manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    except RilaiError as exc:
        yield fail("models", exc.message, fix_of(exc, "reinstall Rilai"))
        return
    own = settings.model_copy(update={"llm": settings.llm.model_copy(update={"fallback": False})})
    routers: list[ModelRouter] = []

    def shared_router() -> ModelRouter:
        if not routers:
            routers.append(make_router(paths, own))
        return routers[0]

    seen: dict[Path, CheckResult] = {}
    try:
        for tier in TIERS:
            try:
                entry = manifest.for_tier(tier)
            except RilaiError as exc:
                yield fail(f"model:{tier}", exc.message, fix_of(exc, "reinstall Rilai"))
                continue
            path = entry.path_in(paths.models_dir).resolve()
            earlier = seen.get(path)
            if earlier is not None:
                result = dataclasses.replace(
                    earlier,
                    name=f"model:{tier}",
                    detail=f"the same file as {earlier.name}: checked there",
                    seconds=0.0,
                )
            else:
                result = timed(
                    f"model:{tier}",
                    functools.partial(
                        check_tier,
                        tier,
                        entry,
                        paths.models_dir,
                        shared_router if smoke_test else None,
                        frozen=frozen,
                        hash_file=hash_file,
                        no_smoke_because=no_smoke_because,
                    ),
                    fix=install_fix(tier, frozen=frozen, models_dir=paths.models_dir),
                )
                seen[path] = result
            yield result
    finally:
        for r in routers:
            r.close()  # the turn loads its own; do not hold two copies
