"""Issue 30, item 5 — offline, proven: a whole session from the checkout inside a network
namespace with no network (`unshare -n`), and the network audit hook
(rilai_desktop/network_audit.py) counting every attempt other than AF_UNIX.

The session runs in its own process, ``unshare -n xvfb-run -a python -m
tests.reliability.test_offline OUT KIND``: the real `rilai window` path (``cli.main`` installs
the hook and begins the session, ``ui.app.run_window`` opens the window on the X server, the
engine loads on its loader thread and the daemon starts on APScheduler), turns typed into
the window's input, one daemon tick (its decay and nudges) and one maintenance pass (backup,
consolidation, index snapshot, …) on the engine's worker, then the window closed. Still in
the namespace, `rilai doctor` (another process) reads the session record. The test checks
the figures the session wrote: 0 attempts, and doctor's "none attempted this session".

The fake-engine variant (scripted models, real SQLite and FAISS) runs in `make test`; the
real-model variant is an e2e test.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.paths import REPO_ROOT
from tests.reliability.conftest import Report, Scale

MESSAGES = (
    "I finally repotted the fig tree on the balcony today.",
    "Work was long, but the walk home by the river helped.",
    "Tomorrow I want to call my sister about the trip.",
    "I think I'm sleeping better since I stopped coffee after noon.",
    "The neighbour's cat visited again and sat on the windowsill.",
)


def namespace_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("xvfb-run") is None:
        return False
    try:
        done = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


needs_namespace = pytest.mark.skipif(
    not namespace_works(), reason="needs `unshare -n` (root or user namespaces) and xvfb-run"
)


def run_offline_session(tmp_path: Path, kind: str, turns: int, env: dict[str, str]) -> Any:
    out = tmp_path / "session.json"
    env = {**env, "RILAI_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    env.pop("QT_QPA_PLATFORM", None)  # the window runs on the X server
    command = ["unshare", "-n", "xvfb-run", "-a", "-s", "-screen 0 1280x800x24"]
    command += [sys.executable, "-m", "tests.reliability.test_offline", str(out), kind]
    command += [str(turns)]
    limit = 300 if kind == "fake" else 1800
    child = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # on a timeout, Xvfb and the session go with it
    )
    try:
        stdout, stderr = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        stdout, stderr = child.communicate()
    done = subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
    assert out.is_file(), (done.returncode, done.stdout[-3000:], done.stderr[-3000:])
    summary = json.loads(out.read_text())
    summary["exit"] = done.returncode
    summary["stderr_tail"] = done.stderr[-1500:]
    return summary


def record_and_check(report: Report, summary: Any, turns: int, proof: str = "offline") -> None:
    record = summary.get("audit_record") or {}
    doctor = summary.get("doctor_network") or {}
    figures = {
        "attempts": record.get("attempted"),
        "allowed_to_endpoints": record.get("allowed"),
        "attempts_in_process": summary.get("attempts_in_process"),
        "interfaces_in_namespace": summary.get("interfaces"),
        "session_parts": summary.get("parts"),
        "turns_answered": summary.get("turns_answered"),
        "maintenance_steps": summary.get("maintenance_steps"),
        "doctor_line": summary.get("doctor_line"),
        "session_exit": summary["exit"],
    }
    bars = {
        "no_network_in_namespace": summary.get("interfaces") == ["lo"],
        "zero_attempts": record.get("attempted") == 0 and summary.get("attempts_in_process") == 0,
        "all_turns_answered": summary.get("turns_answered") == turns,
        "daemon_and_maintenance_ran": summary.get("tick_ok") is True
        and summary.get("maintenance_ok") is True,
        "doctor_says_none": doctor.get("status") == "ok"
        and str(doctor.get("detail", "")).startswith("none attempted this session"),
        "session_exit_ok": summary["exit"] == 0,
    }
    report.record(proof, figures, bars)
    print("\n" + json.dumps(figures, indent=1, ensure_ascii=False))
    assert summary["exit"] == 0, summary["stderr_tail"]
    assert summary.get("interfaces") == ["lo"], summary.get("interfaces")
    assert record.get("attempted") == 0, record
    assert summary.get("attempts_in_process") == 0, summary.get("attempt_list")
    assert summary.get("turns_answered") == turns, summary
    assert summary.get("tick_ok") is True and summary.get("maintenance_ok") is True, summary
    assert doctor.get("status") == "ok", doctor
    assert str(doctor.get("detail", "")).startswith("none attempted this session"), doctor


@needs_namespace
def test_a_whole_session_offline_makes_no_network_attempt(
    tmp_path: Path, scale: Scale, report: Report
) -> None:
    turns = scale.pick(2, len(MESSAGES))
    env = {**os.environ, "RILAI_EMBEDDING__BACKEND": "hash"}
    summary = run_offline_session(tmp_path, "fake", turns, env)
    record_and_check(report, summary, turns)


@pytest.mark.e2e
@needs_namespace
def test_a_whole_session_on_the_real_models_offline(
    tmp_path: Path, scale: Scale, report: Report, real_models: Path
) -> None:
    turns = scale.pick(1, len(MESSAGES))
    env = {**os.environ, "RILAI_MODELS_DIR": str(real_models)}
    summary = run_offline_session(tmp_path, "real", turns, env)
    record_and_check(report, summary, turns, proof="offline_real")


# ── the session itself (runs inside the namespace, under Xvfb) ─────────────────────────────


def fake_parts(core: Any) -> Any:
    """The fake engine's parts (tests/fake_engine.py's wiring, without opening an Engine)."""
    from rilai_desktop.app.build import build_memory
    from rilai_desktop.app.engine import EngineParts
    from rilai_desktop.app.memory_bridge import MemoryBridge
    from rilai_desktop.llm.fake import ScriptedLLM, agent_answer
    from rilai_desktop.turn.factory import build_turn_runner
    from tests.fake_engine import VOICE_REPLY, FakeModels
    from tests.turn.conftest import PROMPTS

    models = FakeModels(
        ScriptedLLM(default=VOICE_REPLY),
        {
            "agents": ScriptedLLM(default=agent_answer()),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
        },
    )
    memory = build_memory(core, with_models=False, router=models, auto_consolidate=False)
    runner = build_turn_runner(
        events=core.event_log,
        models=models,
        memory=MemoryBridge(memory),
        prompts=PROMPTS,
        use_judge=False,
    )
    return EngineParts(core, models, memory, runner)


def session_main(out: Path, kind: str, turns: int) -> int:
    """The offline session; writes its figures to ``out``."""
    summary: dict[str, Any] = {"parts": []}
    summary["interfaces"] = interfaces()
    try:
        drive_session(summary, kind, turns)
    finally:
        from rilai_desktop.network_audit import attempts, last_session
        from rilai_desktop.paths import resolve_paths

        found = attempts()
        leaks = [a for a in found if not a.allowed]
        summary["attempts_in_process"] = len(leaks)
        summary["attempt_list"] = [f"{a.event} {a.where}" for a in found][:50]
        summary["audit_record"] = last_session(resolve_paths().data_dir)
        summary.update(ask_doctor())
        out.write_text(json.dumps(summary, indent=1, ensure_ascii=False, default=str))
    return 0


def interfaces() -> list[str]:
    """This network namespace's interfaces (``/proc/self/net/dev`` is per namespace; sysfs
    may still show the host's), read without opening a socket."""
    lines = Path("/proc/self/net/dev").read_text().splitlines()[2:]
    return sorted(line.split(":", 1)[0].strip() for line in lines if ":" in line)


def ask_doctor() -> dict[str, Any]:
    """`rilai doctor` in another process (inside the namespace too): its network line."""
    done = subprocess.run(
        [sys.executable, "-m", "rilai_desktop", "doctor", "--json", "--no-smoke"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        checks = json.loads(done.stdout)["checks"]
    except (ValueError, KeyError):
        return {"doctor_network": None, "doctor_line": done.stderr[-500:]}
    line = next((c for c in checks if c["name"] == "network"), None)
    text = f"{line['status']}  network  {line['detail']}" if line else None
    return {"doctor_network": line, "doctor_line": text}


def drive_session(summary: dict[str, Any], kind: str, turns: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from rilai_desktop.cli.commands._context import Builders, Context
    from rilai_desktop.cli.main import main
    from rilai_desktop.ui.app import run_window
    from rilai_desktop.ui.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    opened: list[Any] = []

    def window(ctx: Context) -> int:
        def open_engine() -> Any:
            opened.append(ctx.engine())
            return opened[-1]

        return run_window(open_engine, theme="light", data_dir=ctx.paths.data_dir)

    def wait(condition: Any, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            if condition():
                return True
            time.sleep(0.02)
        return False

    def drive() -> None:
        try:
            windows = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow)]
            win = windows[0]
            if not wait(lambda: win.bridge is not None, 600 if kind == "real" else 120):
                raise RuntimeError("the engine did not open")
            summary["parts"].append("window started under Xvfb, engine and daemon loaded")
            engine = opened[0]
            answered = 0
            for message in MESSAGES[:turns]:
                win.input.setPlainText(message)
                QTest.keyClick(win.input, Qt.Key.Key_Return)
                wait(lambda: win.bridge is not None and win.bridge.busy, 5)

                def replied() -> bool:
                    # the reply row, not only an idle engine: a fast turn can end before
                    # busy is seen, with its reply still queued for the window
                    last = win.view.rows[-1] if win.view.rows else None
                    done = last is not None and last.role == "assistant" and bool(last.final)
                    return bool(done and win.bridge is not None and not win.bridge.busy)

                answered += wait(replied, 600)
            summary["turns_answered"] = answered
            summary["parts"].append(f"{answered} turn(s) typed into the window")
            daemon = engine.daemon
            later = daemon.clock.now() + timedelta(hours=3)
            tick = engine.run_job(lambda: daemon.tick(later))
            summary["tick_ok"] = not tick.errors
            summary["parts"].append(
                f"daemon tick (decayed: {tick.decayed is not None}, nudges: {len(tick.nudges)},"
                f" errors: {len(tick.errors)})"
            )
            passed = engine.run_job(lambda: daemon.maintenance_pass(later))
            steps = {name: s["status"] for name, s in passed.get("steps", {}).items()}
            summary["maintenance_steps"] = steps
            summary["maintenance_ok"] = bool(passed.get("ok")) and steps.get("backup") == "done"
            summary["parts"].append(
                "maintenance pass: " + ", ".join(f"{k} {v}" for k, v in steps.items())
            )
        except Exception as exc:
            summary["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            for w in app.topLevelWidgets():
                if isinstance(w, MainWindow):
                    w.hide_on_close = lambda: False
                    w.close()
            app.quit()

    QTimer.singleShot(0, drive)
    builders = (
        Builders(window=window)
        if kind == "real"
        else Builders(engine_parts=fake_parts, window=window)
    )
    summary["window_exit"] = main(["window"], builders=builders)
    summary["parts"].append("window closed, engine and daemon stopped")


if __name__ == "__main__":
    sys.exit(session_main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
