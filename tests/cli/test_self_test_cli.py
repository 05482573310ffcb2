"""`rilai self-test` on the command line, with the self-test's fakes: the human lines and
summary, `--json` (the report and nothing else on stdout), `--quick`, the exit codes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from rilai_desktop.cli.commands import self_test_cmd
from tests.app.self_test_fakes import (
    LIBRARY_NAMES,
    Recorder,
    broken,
    fake_seams,
    install_sparse_models,
    loads,
)
from tests.cli_runner import RunWith


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RILAI_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    return tmp_path / "models"


def test_human_output_is_one_line_per_check_and_a_summary(
    run_with: RunWith, models_dir: Path
) -> None:
    seams = fake_seams(install_sparse_models(models_dir), Recorder())
    result = run_with(functools.partial(self_test_cmd.run, seams=seams), "self-test")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert lines[0].startswith("rilai self-test (") and str(models_dir) in lines[0]
    checks = lines[1:-1]
    assert len(checks) == 14 and all(line.startswith("ok    ") for line in checks), checks
    assert checks[0].split()[1] == "lib:llama_cpp" and checks[-1].split()[1] == "turn"
    assert all(line.endswith(" s]") for line in checks)
    assert lines[-1].startswith("self-test passed: 14 checks ok in ")


def test_a_failure_prints_its_fix_and_exits_1(run_with: RunWith, models_dir: Path) -> None:
    libs = [loads(n) for n in LIBRARY_NAMES]
    libs[2] = broken("torch", OSError("libtorch_cpu.so: cannot open shared object file"))
    seams = fake_seams(install_sparse_models(models_dir), Recorder(), libraries=libs)
    result = run_with(functools.partial(self_test_cmd.run, seams=seams), "self-test")
    assert result.code == 1
    out = result.out.splitlines()
    torch_line = next(i for i, line in enumerate(out) if "lib:torch" in line)
    assert out[torch_line].startswith("fail  lib:torch")
    assert "libtorch_cpu.so" in out[torch_line]
    assert out[torch_line + 1].strip().startswith("fix: reinstall the dependencies")
    assert any(line.startswith("skip  embedder") and "needs lib:torch" in line for line in out)
    assert out[-1].startswith("self-test FAILED: 1 check(s) failed (lib:torch)")


def test_debug_prints_the_failed_checks_traceback_on_stderr(
    run_with: RunWith, models_dir: Path
) -> None:
    libs = [loads(n) for n in LIBRARY_NAMES]
    libs[3] = broken("sentence_transformers", ModuleNotFoundError("No module named 'torch.x'"))
    seams = fake_seams(install_sparse_models(models_dir), Recorder(), libraries=libs)
    handler = functools.partial(self_test_cmd.run, seams=seams)
    quiet = run_with(handler, "self-test", "--quick")
    assert quiet.code == 1 and "Traceback" not in quiet.err
    loud = run_with(handler, "self-test", "--quick", "--debug")
    assert loud.code == 1
    assert "self-test check lib:sentence_transformers failed" in loud.err
    assert "Traceback" in loud.err and "No module named 'torch.x'" in loud.err


def test_json_is_the_report_alone(run_with: RunWith, models_dir: Path) -> None:
    seams = fake_seams(install_sparse_models(models_dir), Recorder())
    result = run_with(
        functools.partial(self_test_cmd.run, seams=seams), "self-test", "--json", "--quick"
    )
    assert result.code == 0, result
    data = json.loads(result.out)  # nothing but the report on stdout
    assert data["ok"] is True and data["frozen"] is False
    assert data["install"]["models"] == str(models_dir)
    statuses = {c["name"]: c["status"] for c in data["checks"]}
    assert statuses["turn"] == "skip" and statuses["model:large"] == "ok"


def test_json_reports_the_failure_and_exits_1(run_with: RunWith, models_dir: Path) -> None:
    seams = fake_seams(install_sparse_models(models_dir, ("small",)), Recorder())
    result = run_with(functools.partial(self_test_cmd.run, seams=seams), "self-test", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    failed = [c for c in data["checks"] if c["status"] == "fail"]
    assert [c["name"] for c in failed] == ["model:medium", "model:large"]
    assert [c["fix"] for c in failed] == [
        "rilai models install medium",
        "rilai models install large",
    ]
    assert data["ok"] is False


def test_the_command_is_listed_and_its_probe_is_hidden(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rilai_desktop.cli.parser import build_parser

    assert "self-test" in build_parser().format_help()
    with pytest.raises(SystemExit):
        build_parser().parse_args(["self-test", "--help"])
    help_text = capsys.readouterr().out
    assert "--quick" in help_text and "--probe" not in help_text
    args = build_parser().parse_args(["self-test", "--quick"])
    assert args.command == "self-test" and args.quick and args.probe is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["self-test", "--probe", "gpu"])
