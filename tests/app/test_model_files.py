"""Each tier's GGUF: shown with size and sha256 state from the installer's cache; a file
chosen for a tier goes to the model overlay (the store the router reads), refused unless
it is a GGUF."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from rilai_desktop.app.model_files import MISMATCH, MISSING, NOT_VERIFIED, VERIFIED, ModelFiles
from rilai_desktop.errors import RilaiError
from rilai_desktop.llm.manifest import ModelEntry, ModelSource, load_manifest, update_overlay
from rilai_desktop.paths import Paths, resolve_paths


@pytest.fixture
def paths(rilai_home: Path) -> Paths:
    return resolve_paths()


def test_shipped_tiers_without_their_files_are_missing(paths: Paths) -> None:
    rows = ModelFiles(paths).rows()
    assert [r.tier for r in rows] == ["small", "medium", "large"]
    assert all(r.state == MISSING and r.size is None and not r.custom for r in rows)


def test_a_chosen_gguf_is_a_custom_file_that_a_restart_reads(paths: Paths, tmp_path: Path) -> None:
    gguf = tmp_path / "My Model.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 60)
    row = ModelFiles(paths).use_file("small", gguf)
    assert row.custom and row.path == gguf and row.size == 64
    assert row.state == "custom file (not verified)"
    manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    assert manifest.for_tier("small").path_in(paths.models_dir) == gguf  # the router's view
    verified = ModelFiles(paths).verify("small")  # reads the file: off the GUI thread
    assert verified.state.startswith("custom file (sha256 ")
    assert ModelFiles(paths).rows()[0].state == verified.state  # remembered in the cache


def test_a_file_that_is_not_gguf_or_missing_is_refused_and_nothing_changes(
    paths: Paths, tmp_path: Path
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(RilaiError, match="not a GGUF file"):
        ModelFiles(paths).use_file("small", text)
    with pytest.raises(RilaiError, match="not found"):
        ModelFiles(paths).use_file("small", tmp_path / "gone.gguf")
    assert not paths.user_manifest_file.exists()


def test_a_manifest_file_is_verified_or_mismatched_by_its_sha256(paths: Paths) -> None:
    content = b"GGUF" + b"x" * 100
    paths.models_dir.mkdir(parents=True)
    (paths.models_dir / "tiny.gguf").write_bytes(content)

    def register(sha: str) -> None:
        entry = ModelEntry(
            "tiny", "Tiny", "tiny.gguf", sha, len(content), "MIT", None,
            ModelSource("package_file"),
        )  # fmt: skip
        update_overlay(paths.user_manifest_file, add=entry, tiers={"medium": "tiny"})

    register(hashlib.sha256(content).hexdigest())
    files = ModelFiles(paths)
    assert files.rows()[1].state == NOT_VERIFIED  # not hashed yet
    assert files.verify("medium").state == VERIFIED
    assert files.rows()[1].state == VERIFIED and files.rows()[1].size == len(content)
    register("0" * 64)
    assert files.rows()[1].state == MISMATCH
