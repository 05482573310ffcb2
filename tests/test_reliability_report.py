"""tools/reliability_report.py: a missing proof or an unmet bar fails the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rilai_desktop.paths import REPO_ROOT

TOOL = REPO_ROOT / "tools" / "reliability_report.py"
PROOFS = [
    "crash",
    "hostile_input",
    "malformed_output",
    "soak",
    "offline",
    "permissions",
    "corruption",
    "threads",
    "two_writers",
    "injection",
]


def _write(out: Path, proof: str, passed: bool) -> None:
    body = {"proof": proof, "scale": "full", "figures": {"n": 1}, "bars": {"ok": passed}}
    body["passed"] = passed
    (out / f"{proof}.json").write_text(json.dumps(body), encoding="utf-8")


def _run(out: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), str(out), str(dest), "--markdown"],
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_proof_met_passes(tmp_path: Path) -> None:
    for proof in [*PROOFS, "crash_real"]:
        _write(tmp_path, proof, True)
    done = _run(tmp_path, tmp_path / "report.json")
    assert done.returncode == 0, done.stdout
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["passed"] and set(report["proofs"]) == {*PROOFS, "crash_real"}
    assert "| crash_real | pass (full) | n 1 |" in done.stdout


def test_a_missing_proof_or_an_unmet_bar_fails(tmp_path: Path) -> None:
    for proof in PROOFS[:-1]:
        _write(tmp_path, proof, proof != "soak")
    done = _run(tmp_path, tmp_path / "report.json")
    assert done.returncode == 1
    assert "| soak | FAIL: ok (full)" in done.stdout
    assert "| injection | MISSING | did not run |" in done.stdout
