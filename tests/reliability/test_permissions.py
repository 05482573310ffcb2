"""Issue 30, item 6 — privacy at rest: every folder under RILAI_HOME 0700 and every file 0600
(the database with its WAL and SHM, backups, index snapshots, exports, category and journal
files, settings, the API token, the daemon's job store, the nudge controls, logs) whatever
the umask; and nothing the person wrote reaches a log or stderr at the default log level.

The app's file-writing paths run in a child process under ``os.umask(0o000)`` (``python -m
tests.reliability.test_permissions OUT``), so the umask never leaks into other tests: the
`rilai` commands that write (``config set``, ``serve --show-token``, ``nudges snooze``,
``memory export``), an engine on the fakes with its daemon on APScheduler, turns carrying a
distinctive sentence, a daemon tick and a maintenance pass (backup, consolidation, index
snapshot). The test then walks RILAI_HOME and greps every log file and the child's stderr.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from rilai_desktop.paths import REPO_ROOT
from tests.reliability.conftest import Report, Scale

# what the person says: it must reach the database, never a log
SECRET = "My locker combination is 31-7-22 and I hid the spare key under the blue heron statue."


def walk_modes(home: Path) -> tuple[int, list[str]]:
    """(entries checked, the ones with a wrong mode): folders 0700, files 0600."""
    checked, wrong = 1, []
    if stat.S_IMODE(home.stat().st_mode) != 0o700:
        wrong.append(f"./ {stat.S_IMODE(home.stat().st_mode):04o}")
    for root, dirs, files in os.walk(home):
        for name in dirs:
            path = Path(root) / name
            mode = stat.S_IMODE(path.lstat().st_mode)
            checked += 1
            if mode != 0o700:
                wrong.append(f"{path.relative_to(home)}/ {mode:04o}")
        for name in files:
            path = Path(root) / name
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.lstat().st_mode)
            checked += 1
            if mode != 0o600:
                wrong.append(f"{path.relative_to(home)} {mode:04o}")
    return checked, wrong


def log_texts(home: Path) -> dict[str, str]:
    """Every log-like file under RILAI_HOME (the logs folder, any *.log)."""
    found: dict[str, str] = {}
    for path in home.rglob("*"):
        if path.is_file() and ("logs" in path.relative_to(home).parts or path.suffix == ".log"):
            found[str(path.relative_to(home))] = path.read_text("utf-8", errors="replace")
    return found


def test_private_at_rest_whatever_the_umask(tmp_path: Path, scale: Scale, report: Report) -> None:
    turns = scale.pick(2, 10)
    home = tmp_path / "home"
    out = tmp_path / "child.json"
    env = {**os.environ, "RILAI_HOME": str(home), "RILAI_EMBEDDING__BACKEND": "hash"}
    env["OMP_NUM_THREADS"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability.test_permissions", str(out), str(turns)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    child: dict[str, Any] = json.loads(out.read_text()) if out.is_file() else {}
    checked, wrong = walk_modes(home)
    open_checked, open_wrong = child.get("open_walk", (0, []))
    checked, wrong = checked + open_checked, [*open_wrong, *wrong]
    logs = log_texts(home)
    streams = {"stderr": done.stderr, "stdout": done.stdout, **logs}
    leaked = [name for name, text in streams.items() if "31-7-22" in text or "heron" in text]
    in_database = child.get("secret_in_database", False)
    figures = {
        "umask": "0000",
        "files_and_folders_checked": checked,
        "wrong_modes": len(wrong),
        "wrong": wrong[:20],
        "log_files": sorted(logs),
        "private_text_in_logs": len(leaked),
        "turns": child.get("turns_answered"),
        "written_by": child.get("steps"),
        "secret_reached_the_database": in_database,
        "database_files_while_open": child.get("open_files"),
    }
    bars = {
        "child_ok": done.returncode == 0,
        "no_wrong_modes": not wrong and checked > 0,
        "nothing_private_in_logs": not leaked,
        "the_text_was_there_to_find": bool(in_database),
    }
    report.record("permissions", figures, bars)
    print("\n" + json.dumps(figures, indent=1))
    assert done.returncode == 0, done.stderr[-3000:]
    assert checked > 40 and wrong == [], wrong
    assert leaked == [], leaked
    assert in_database, "the distinctive sentence never reached the database: nothing to find"
    assert {"rilai.db-wal", "rilai.db-shm"} <= set(child["open_files"]), child["open_files"]


# ── the child: the app's writers under umask 000 ───────────────────────────────────────────


def child_main(out: Path, turns: int) -> int:
    os.umask(0o000)
    from rilai_desktop.cli.main import main
    from rilai_desktop.paths import resolve_paths
    from tests.fake_engine import open_fake_engine

    paths = resolve_paths()
    summary: dict[str, Any] = {"steps": []}

    def cli(*argv: str) -> None:
        code = main(list(argv))
        summary["steps"].append(f"rilai {' '.join(argv[:2])}: exit {code}")
        if code != 0:
            raise RuntimeError(f"rilai {' '.join(argv)} exited {code}")

    cli("serve", "--show-token")  # first: the token's folder is made by it
    cli("config", "set", "ui.theme", "dark")
    endpoint = ("--endpoint", "http://10.0.0.2:8080/v1", "--model", "m", "--tier", "large")
    cli("models", "add", "remote", *endpoint)
    engine = open_fake_engine()
    try:
        daemon = engine.start_daemon(schedule=True)  # the job store on disk
        answered = 0
        for n in range(turns):
            result = engine.send(f"{SECRET} (turn {n})").result(timeout=120)
            answered += bool(result.reply)
        summary["turns_answered"] = answered
        tick = engine.run_job(lambda: daemon.tick())
        passed = engine.run_job(lambda: daemon.maintenance_pass())
        summary["steps"].append(f"daemon tick: {len(tick.errors)} error(s)")
        steps = {k: v["status"] for k, v in passed.get("steps", {}).items()}
        summary["steps"].append(f"maintenance: {steps}")
        found = engine.search_messages("heron")
        summary["secret_in_database"] = bool(found)
        memory = engine.parts.memory
        engine.run_job(lambda: memory.category_layer.write_file("about_me", SECRET))
        home = paths.data_dir.parent
        # while the engine is open: the WAL and SHM files are there too
        summary["open_files"] = sorted(p.name for p in paths.data_dir.glob("rilai.db*"))
        summary["open_walk"] = walk_modes(home)
    finally:
        engine.close()
    cli("nudges", "snooze", "2h")
    cli("memory", "export", str(paths.data_dir.parent / "exports" / "memory"))
    out.write_text(json.dumps(summary, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(child_main(Path(sys.argv[1]), int(sys.argv[2])))
