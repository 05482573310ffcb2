"""Issue 30, item 6: what the app writes is owner-only whatever the umask (the proof is
tests/reliability/test_permissions.py). One regression test per writer the proof found
writing with the umask's mode: under umask 000 each made 0666 files or 0777 folders."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rilai_desktop.api.token import load_or_create_token, token_path
from rilai_desktop.config import set_in_file
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.network_audit import begin_session
from rilai_desktop.paths import ensure_private_dir, make_private_dirs, private_opener
from tests.cli_runner import Run


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_000() -> Iterator[None]:
    """The loosest umask, restored after the test (no test thread writes meanwhile)."""
    old = os.umask(0o000)
    try:
        yield
    finally:
        os.umask(old)


def test_make_private_dirs_makes_every_missing_parent_0700(tmp_path: Path, umask_000: None) -> None:
    make_private_dirs(tmp_path / "a" / "b" / "c")
    for folder in ("a", "a/b", "a/b/c"):
        assert mode(tmp_path / folder) == 0o700, folder


def test_the_data_dir_and_its_home_are_0700(tmp_path: Path, umask_000: None) -> None:
    ensure_private_dir(tmp_path / "home" / "data")  # was: home 0777 (mkdir -p's parents)
    assert mode(tmp_path / "home") == 0o700 and mode(tmp_path / "home" / "data") == 0o700


def test_private_opener_makes_and_tightens_0600(tmp_path: Path, umask_000: None) -> None:
    made = tmp_path / "conversation.md"  # the window's "Export conversation" writes so
    with open(made, "w", encoding="utf-8", opener=private_opener) as out:
        out.write("x")
    assert mode(made) == 0o600
    loose = tmp_path / "loose.md"
    loose.write_text("old")
    loose.chmod(0o644)
    with open(loose, "w", encoding="utf-8", opener=private_opener) as out:
        out.write("new")
    assert mode(loose) == 0o600


def test_settings_are_saved_0600(tmp_path: Path, umask_000: None) -> None:
    settings = tmp_path / "cfg" / "settings.toml"
    set_in_file(settings, "ui.theme", "dark")
    assert mode(settings) == 0o600 and mode(settings.parent) == 0o700


def test_the_api_token_folder_is_0700(tmp_path: Path, umask_000: None) -> None:
    load_or_create_token(tmp_path / "home" / "config")
    assert mode(tmp_path / "home") == 0o700 and mode(tmp_path / "home" / "config") == 0o700
    assert mode(token_path(tmp_path / "home" / "config")) == 0o600


def test_the_nudge_controls_file_is_0600(tmp_path: Path, umask_000: None) -> None:
    controls = NudgeControls(tmp_path / "data" / "nudges.json")
    controls.snooze(datetime.now(UTC), timedelta(hours=1))
    assert mode(tmp_path / "data" / "nudges.json") == 0o600
    assert mode(tmp_path / "data") == 0o700


def test_the_network_audit_record_folders_are_0700(tmp_path: Path, umask_000: None) -> None:
    record = begin_session(tmp_path / "home" / "data", "test")
    assert mode(record) == 0o600
    for folder in (record.parent, tmp_path / "home" / "data", tmp_path / "home"):
        assert mode(folder) == 0o700, folder


def test_the_daemon_job_store_is_0600(monkeypatch: pytest.MonkeyPatch, umask_000: None) -> None:
    from rilai_desktop.daemon.jobs import STORE_FILENAME
    from tests.fake_engine import open_fake_engine

    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    engine = open_fake_engine()
    try:
        engine.start_daemon(schedule=True)
        store = engine.parts.core.paths.data_dir / STORE_FILENAME
        assert mode(store) == 0o600  # was 0644: SQLite's default for a file it creates
    finally:
        engine.close()


def test_memory_exports_are_private(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask_000: None
) -> None:
    from tests.fake_engine import open_fake_engine

    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    folder = tmp_path / "exports" / "memory"
    assert run("memory", "export", str(folder)).code == 0  # was: both folders 0777
    assert mode(tmp_path / "exports") == 0o700 and mode(folder) == 0o700
    assert all(mode(p) == 0o600 for p in folder.rglob("*") if p.is_file())
    engine = open_fake_engine()
    try:
        old_style = tmp_path / "old-export"
        engine.parts.memory.category_layer.write_file("about", "private page")
        engine.parts.memory.export(old_style)  # MemoryManager.export: jsonl + categories
    finally:
        engine.close()
    files = [p for p in old_style.rglob("*") if p.is_file()]
    assert files and all(mode(p) == 0o600 for p in files), [(p, oct(mode(p))) for p in files]
    assert all(mode(p) == 0o700 for p in [old_style, *old_style.rglob("*")] if p.is_dir())


def test_the_models_overlay_is_0600(run: Run, umask_000: None) -> None:
    from rilai_desktop.paths import resolve_paths

    added = run("models", "add", "big", "--endpoint", "http://10.0.0.2:8080/v1",
                "--model", "m", "--tier", "large")  # fmt: skip
    assert added.code == 0, added.err
    assert mode(resolve_paths().user_manifest_file) == 0o600
