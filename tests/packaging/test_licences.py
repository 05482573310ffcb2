"""packaging/licences.py: the bundle's licenses/ folder carries a licence for each thing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import licences
import pytest

ROOT = Path(__file__).resolve().parents[2]


MODEL = {
    "id": "tiny-q4",
    "name": "Tiny Q4",
    "file": "tiny.gguf",
    "sha256": "ab" * 32,
    "licence": "Apache-2.0",
}


def _write(tmp_path: Path, binaries: list[list[str]] | None = None) -> tuple[Path, list[dict]]:
    bundle = tmp_path / "rilai"
    bundle.mkdir()
    rows = licences.write_licences(
        bundle / "licenses",
        frozen_modules=["yaml", "platformdirs", "os", "rilai_desktop"],
        bundle=bundle,
        models=[MODEL],
        binaries=binaries or [],
    )
    return bundle, rows


def test_every_frozen_distribution_gets_its_own_licence_files(tmp_path: Path) -> None:
    bundle, rows = _write(tmp_path)
    by_name = {str(r["component"]).lower(): r for r in rows}
    assert by_name["pyyaml"]["licence"] == "MIT"
    assert by_name["platformdirs"]["files"]
    for row in rows:
        for rel in row["files"]:
            assert (bundle / rel).is_file(), rel
    # Rilai itself is listed once, as the application, not as a python package
    assert [r["kind"] for r in rows if "rilai" in str(r["component"]).lower()] == ["application"]
    assert by_name["rilai desktop"]["licence"] == "MIT"
    assert any(str(r["component"]).startswith("CPython") for r in rows)


def test_models_carry_their_licence_text_and_identity(tmp_path: Path) -> None:
    bundle, rows = _write(tmp_path)
    notice = (bundle / "licenses" / "models" / "tiny-q4" / "NOTICE.txt").read_text()
    assert "tiny.gguf" in notice and "ab" * 32 in notice and "Apache-2.0" in notice
    text = (bundle / "licenses" / "models" / "tiny-q4" / "Apache-2.0.txt").read_text()
    assert "Apache License" in text and "Version 2.0" in text
    # the embedding model is always inside the bundle
    assert any(r["component"].startswith("sentence-transformers/all-MiniLM") for r in rows)


def test_a_wheel_without_licence_files_gets_the_text_its_metadata_names(tmp_path: Path) -> None:
    bundle = tmp_path / "rilai"
    bundle.mkdir()
    rows = licences.write_licences(
        bundle / "licenses", frozen_modules=["PySide6"], bundle=bundle, models=[]
    )
    row = next(r for r in rows if str(r["component"]).lower().startswith("pyside6"))
    names = {Path(f).name for f in row["files"]}
    assert {"LGPL-3.0.txt", "GPL-3.0.txt", "LICENSE-FROM-METADATA.txt"} <= names
    assert "LGPL" in str(row["licence"])


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="needs dpkg (Debian)")
def test_system_libraries_are_traced_to_their_debian_package(tmp_path: Path) -> None:
    libz = next((p for p in Path("/usr/lib").rglob("libz.so.1") if p.exists()), None)
    if libz is None:
        pytest.skip("no libz.so.1 on this machine")
    bundle, rows = _write(tmp_path, binaries=[["libz.so.1", str(libz)]])
    row = next(r for r in rows if r["component"] == "zlib1g")
    assert "libz.so.1" in str(row["kind"])
    assert (bundle / row["files"][0]).read_text().strip()


def test_the_index_is_written_as_json_and_markdown(tmp_path: Path) -> None:
    bundle, rows = _write(tmp_path)
    index = json.loads((bundle / "licenses" / "index.json").read_text())
    assert index == rows
    readme = (bundle / "licenses" / "README.md").read_text()
    assert "| PyYAML" in readme and "| Tiny Q4" in readme
