"""`rilai self-test [--json] [--quick]`: does this installation work, offline? One line per
check (ok / fail / skip, the seconds, the fix under a failure), then a summary; exit 1
when a check failed. ``--json`` prints only the report on stdout: while the checks run,
whatever a library prints to stdout is sent to stderr instead.

``--debug`` also prints each failed check's traceback on stderr.
``self-test --probe qt-libs|qt`` (hidden) is the child process the Qt checks start; it runs
before any settings or paths are read (``run_probe``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from argparse import Namespace
from collections.abc import Iterator

from rilai_desktop.app.self_test import CheckResult, Seams, SelfTestReport, run_self_test
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json


def run_probe(args: Namespace) -> int:
    from rilai_desktop.ui.qt_probe import main

    return main(str(args.probe))


def line(check: CheckResult) -> str:
    text = f"{check.status:<4}  {check.name:<24} {check.detail}  [{check.seconds:.1f} s]"
    if check.fix:
        text += f"\n{'':<30} fix: {check.fix}"
    return text


def summary(report: SelfTestReport) -> str:
    took = f"{report.seconds:.1f} s"
    failed = report.failed
    if not failed:
        skipped = sum(c.status == "skip" for c in report.checks)
        extra = f", {skipped} skipped" if skipped else ""
        return f"self-test passed: {len(report.checks) - skipped} checks ok{extra} in {took}"
    names = ", ".join(c.name for c in failed)
    return f"self-test FAILED: {len(failed)} check(s) failed ({names}) in {took}"


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Keep stdout for the JSON: Python's and the C libraries' prints go to stderr."""
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
        saved = os.dup(fd)
    except (OSError, ValueError, AttributeError):  # no real fd (captured in a test)
        fd = saved = -1
    try:
        if saved >= 0:
            os.dup2(sys.stderr.fileno(), fd)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        if saved >= 0:
            os.dup2(saved, fd)
            os.close(saved)


@contextlib.contextmanager
def tracebacks_on_stderr(enabled: bool) -> Iterator[None]:
    """--debug: each failed check's traceback on stderr while the checks run."""
    if not enabled:
        yield
        return
    logger = logging.getLogger("rilai_desktop.app.self_test")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def run(args: Namespace, ctx: Context, *, seams: Seams | None = None) -> int:
    """``seams``: the self-test's fakes (tests); default the real libraries and models."""
    quick = bool(getattr(args, "quick", False))
    with tracebacks_on_stderr(ctx.debug):
        if ctx.json:
            with stdout_to_stderr():
                report = run_self_test(ctx.paths, ctx.loaded.settings, quick=quick, seams=seams)
            emit_json(report.as_dict())
        else:
            where = "the frozen bundle" if getattr(sys, "frozen", False) else sys.executable
            print(f"rilai self-test ({where}); models in {ctx.paths.models_dir}", flush=True)
            report = run_self_test(
                ctx.paths,
                ctx.loaded.settings,
                quick=quick,
                seams=seams,
                on_check=lambda c: print(line(c), flush=True),
            )
            print(summary(report))
    return report.exit_code
