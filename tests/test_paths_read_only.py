"""A data folder on a read-only file system is refused with the fix that works (a remount),
not a chmod that cannot help (issue 30, proof 7). Needs `mount` (root); skips otherwise."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rilai_desktop.errors import DataDirError
from rilai_desktop.paths import ensure_private_dir


def test_a_read_only_mount_is_named_with_the_remount(tmp_path: Path) -> None:
    data = ensure_private_dir(tmp_path / "data")
    bind = subprocess.run(["mount", "--bind", str(data), str(data)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"mount --bind refused: {bind.stderr!r}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(data)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip(f"remount read-only refused: {ro.stderr!r}")
        with pytest.raises(DataDirError) as refused:
            ensure_private_dir(data)
    finally:
        subprocess.run(["umount", str(data)], check=False)
    assert "read-only file system" in refused.value.message
    assert any("Remount" in hint for hint in refused.value.hints)
