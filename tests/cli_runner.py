"""Run the `rilai` command in-process and capture what it printed (shared by CLI tests)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from rilai_desktop import cli


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> Any:
        return json.loads(self.out)

    def __repr__(self) -> str:
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


Run = Callable[..., Result]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def _run(*argv: str) -> Result:
        capsys.readouterr()
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return _run
