"""Run the `rilai` command in-process and capture what it printed (shared by CLI tests).

``seams`` is how a test hands the CLI fakes (the ``Builders`` seam of ``Context``) instead
of patching our functions: set its ``router`` or ``memory_options`` before ``run(...)``.
``run_with(handler, *argv)`` keeps the real parsing and error reports but hands the parsed
command to ``handler`` — a command's ``run`` with its own fakes bound, e.g.
``functools.partial(models.run, pip=offline)`` — on a fresh Context with those builders.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from rilai_desktop import cli
from rilai_desktop.app.build import build_memory
from rilai_desktop.cli.commands._context import Builders, Context


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> Any:
        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


Run = Callable[..., Result]
Handler = Callable[[argparse.Namespace, Context], int]
RunWith = Callable[..., Result]


@dataclass
class CliSeams:
    """What a test hands the CLI: a model router factory, options for the real memory
    (``escalation_threshold``, ``retry``), a record of each memory's ``with_models``, and
    the window (by default a stand-in that records it was asked for: a test never blocks
    in a Qt event loop)."""

    router: Callable[..., Any] | None = None
    memory_options: dict[str, Any] = field(default_factory=dict)
    memory_with_models: list[bool] = field(default_factory=list)
    windows_opened: int = 0

    def builders(self) -> Builders:
        def memory(core: Any, with_models: bool, router: Callable[[], Any]) -> Any:
            self.memory_with_models.append(with_models)
            return build_memory(
                core, with_models=with_models, router_factory=router, **self.memory_options
            )

        def window(ctx: Any) -> int:
            self.windows_opened += 1
            return 0

        if self.router is None:
            return Builders(memory=memory, window=window)
        return Builders(memory=memory, router=self.router, window=window)


@pytest.fixture
def seams() -> CliSeams:
    return CliSeams()


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], seams: CliSeams) -> Run:
    def _run(*argv: str) -> Result:
        capsys.readouterr()
        code = cli.main(list(argv), seams.builders())
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return _run


@pytest.fixture
def run_with(capsys: pytest.CaptureFixture[str], seams: CliSeams) -> RunWith:
    def _run_with(handler: Handler, *argv: str) -> Result:
        def runner(args: argparse.Namespace) -> int:
            assert not args.set, "run_with() takes no --set (use run() or the environment)"
            ctx = Context.create({}, json=args.json, debug=args.debug, builders=seams.builders())
            try:
                return handler(args, ctx)
            finally:
                ctx.close()

        capsys.readouterr()
        code = cli.main(list(argv), run=runner)
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return _run_with
