"""The reliability proofs (docs/reliability.md): each runs a few iterations in `make test`
and at full scale under `make reliability`, which sets RILAI_RELIABILITY=full and
RILAI_RELIABILITY_OUT to a folder; each proof then writes its figures there as
``<proof>.json`` and tools/reliability_report.py gathers them into reliability-report.json.

Both variables are read here at import, before the autouse ``rilai_home`` fixture clears
every RILAI_* variable from the tests' environment."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FULL = os.environ.get("RILAI_RELIABILITY", "").lower() == "full"
OUT = os.environ.get("RILAI_RELIABILITY_OUT") or None


@dataclass(frozen=True)
class Scale:
    """How many iterations a proof runs: a few in `make test`, all under `make reliability`."""

    full: bool

    def pick(self, fast: int, full: int) -> int:
        return full if self.full else fast


@dataclass
class Report:
    """One proof's figures and the bars they are held to (a bar is True when met)."""

    out: Path | None

    def record(self, proof: str, figures: Mapping[str, Any], bars: Mapping[str, bool]) -> None:
        """Write the figures (always, so a failing proof still shows what it measured)."""
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        body = {
            "proof": proof,
            "scale": "full" if FULL else "fast",
            "figures": dict(figures),
            "bars": {name: bool(ok) for name, ok in bars.items()},
            "passed": all(bars.values()),
        }
        (self.out / f"{proof}.json").write_text(
            json.dumps(body, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.reliability)


@pytest.fixture
def scale() -> Scale:
    return Scale(full=FULL)


@pytest.fixture
def report() -> Report:
    return Report(Path(OUT) if OUT else None)
