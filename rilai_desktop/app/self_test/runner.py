"""`rilai self-test`: the checks in order, each one skipped when what it needs failed.

1. ``lib:*`` — llama_cpp, faiss, torch, sentence_transformers, sqlite3, pyside6 load;
2. ``model:small|medium|large`` — each file's full sha256, then a 5-token answer;
3. ``embedder`` — MiniLM encodes (384 dims, related texts closer than unrelated ones);
4. ``faiss``, ``sqlite_fts5`` — an index and an FTS5 table answer;
5. ``qt`` — the offscreen platform plugin renders a widget (in a child process);
6. ``turn`` — one whole turn on the real models in a temporary data folder.

Everything that reaches outside is a field of ``Seams`` with the real thing as its
default (the router, the embedder, the engine, the Qt probe, the hash, the libraries):
tests hand in fakes, the e2e test runs it all. ``quick`` skips the answers and the turn.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rilai_desktop import __version__
from rilai_desktop.app.build import build_router
from rilai_desktop.app.self_test import libraries, models, stores, turn
from rilai_desktop.app.self_test.qt import QT_LIBS_FIX, QtProbe, is_frozen, run_qt_probe
from rilai_desktop.app.self_test.report import CheckResult, SelfTestReport, fail, ok, skip, timed
from rilai_desktop.config import Settings
from rilai_desktop.llm.installer import HashFile, sha256_of
from rilai_desktop.paths import PACKAGE_DIR, Paths

OnCheck = Callable[[CheckResult], None]


@dataclass(frozen=True)
class Seams:
    """What the self-test reaches outside through; real by default."""

    libraries: Sequence[libraries.Library] | None = None  # None: the real six
    qt_probe: QtProbe = run_qt_probe
    hash_file: HashFile = sha256_of
    make_router: models.RouterFactory = build_router
    make_embedder: stores.EmbedderFactory = stores.real_embedder
    open_engine: turn.EngineOpener = turn.real_engine


def reinstall_fix(frozen: bool) -> str:
    if frozen:
        return "this installed Rilai is incomplete: reinstall it from the release package"
    return (
        "reinstall the dependencies: `make run` in the checkout "
        "(or .venv/bin/pip install -e '.[models]')"
    )


def install_info(paths: Paths, *, frozen: bool) -> dict[str, Any]:
    """Where this installation keeps its parts (what `--json` reports as ``install``)."""
    return {
        "version": __version__,
        "python": platform.python_version(),
        "executable": sys.executable,
        "bundle": str(getattr(sys, "_MEIPASS", "")) or None,
        "package": str(PACKAGE_DIR),
        "prompts": str(paths.prompts_dir),
        "manifest": str(paths.manifest_file),
        "user_manifest": str(paths.user_manifest_file),
        "models": str(paths.models_dir),
        "data": str(paths.data_dir),
        "config": str(paths.config_dir),
    }


def check_qt(probe: QtProbe) -> CheckResult:
    outcome = probe("qt")
    d = outcome.data
    if not outcome.ok:
        return fail("qt", f"Qt offscreen failed: {outcome.error}", QT_LIBS_FIX)
    size = "×".join(str(n) for n in d.get("pixmap", []))
    return ok(
        "qt",
        f"platform {d.get('platform')}, plugins at {d.get('plugins')}, rendered {size} "
        f"({d.get('font_families')} font families)",
    )


class _Run:
    """The checks so far, and what each later check needs of them."""

    def __init__(self, on_check: OnCheck | None) -> None:
        self.results: list[CheckResult] = []
        self._on_check = on_check

    def add(self, result: CheckResult) -> CheckResult:
        self.results.append(result)
        if self._on_check is not None:
            self._on_check(result)
        return result

    def not_ok(self, names: Sequence[str]) -> list[str]:
        status = {r.name: r.status for r in self.results}
        return [n for n in names if status.get(n) != "ok"]

    def run(
        self, name: str, needs: Sequence[str], check: Callable[[], CheckResult], fix: str
    ) -> None:
        missing = self.not_ok(needs)
        if missing:
            self.add(skip(name, f"needs {', '.join(missing)}"))
        else:
            self.add(timed(name, check, fix=fix))


def run_self_test(
    paths: Paths,
    settings: Settings,
    *,
    quick: bool = False,
    frozen: bool | None = None,
    seams: Seams | None = None,
    on_check: OnCheck | None = None,
) -> SelfTestReport:
    """Every check, in order; ``on_check`` hears each one as it finishes."""
    from rilai_desktop.memory.embedding import offline_environment

    offline_environment()  # nothing here may reach a hub, whatever loads first
    frozen = is_frozen() if frozen is None else frozen
    seams = seams or Seams()
    fix = reinstall_fix(frozen)
    run = _Run(on_check)
    libs = seams.libraries
    if libs is None:
        libs = libraries.default_libraries(settings, seams.qt_probe)
    for lib in libs:
        run.add(libraries.check_library(lib, fix))

    # 2. the models: verified, then (unless quick) a 5-token answer each
    llama_missing = ", ".join(run.not_ok(["lib:llama_cpp"]))
    model_checks = [
        run.add(result)
        for result in models.check_models(
            paths,
            settings,
            frozen=frozen,
            smoke_test=not quick and not llama_missing,
            make_router=seams.make_router,
            hash_file=seams.hash_file,
            no_smoke_because="" if quick else llama_missing,
        )
    ]

    # 3-5
    run.run(
        "embedder",
        libraries.embedder_libraries(settings),
        lambda: stores.check_embedder(settings, seams.make_embedder),
        fix,
    )
    run.run("faiss", ["lib:faiss"], stores.check_faiss, fix)
    run.run("sqlite_fts5", ["lib:sqlite3"], stores.check_sqlite_fts5, fix)
    run.run("qt", ["lib:pyside6"], lambda: check_qt(seams.qt_probe), QT_LIBS_FIX)

    # 6. the whole turn needs everything a turn touches
    if quick:
        run.add(skip("turn", "--quick"))
    else:
        needs = [r.name for r in model_checks] + ["embedder", "faiss", "sqlite_fts5"]
        run.run(
            "turn",
            needs,
            lambda: turn.check_turn(paths, settings, seams.open_engine),
            fix,
        )
    info = install_info(paths, frozen=frozen)
    return SelfTestReport(frozen=frozen, install=info, checks=run.results)
