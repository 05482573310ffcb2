"""packaging/linux/measure_depends.py on real ELF files: Qt's xcb platform plugin from this
venv's PySide6 (its libraries not shipped beside it, so the system's count) finds the xcb
packages; what a bundle ships is not a dependency; optional plugins are kept apart; and the
checked-in depends.txt matches a fresh measurement of the real bundle where one is built."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import measure_depends  # packaging/linux is on sys.path: tests/packaging/conftest.py
import pytest

from rilai_desktop.paths import REPO_ROOT
from tests.packaging.conftest import LINUX

pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("objdump", "dpkg")), reason="needs objdump and dpkg"
)
QT = Path(__import__("PySide6").__file__).parent / "Qt"
# the real bundle, where `make package` (or RILAI_DIST) put one; read before conftest's
# autouse fixture clears RILAI_* variables
REAL_BUNDLE = Path(os.environ.get("RILAI_DIST") or REPO_ROOT / "dist") / "rilai"


def link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def test_qxcb_alone_needs_the_xcb_libraries_from_the_system(tmp_path: Path) -> None:
    """A "bundle" of the xcb plugin and the Qt libraries it links, as PySide6 ships them:
    every other library it needs comes from the system."""
    bundle = tmp_path / "bundle"
    link_or_copy(
        QT / "plugins/platforms/libqxcb.so", bundle / "PySide6/Qt/plugins/platforms/libqxcb.so"
    )
    for lib in (QT / "lib").glob("libQt6*.so.6"):
        if lib.name.split(".")[0] in {
            "libQt6Core",
            "libQt6Gui",
            "libQt6DBus",
            "libQt6XcbQpa",
            "libQt6OpenGL",
        }:
            link_or_copy(lib, bundle / "PySide6/Qt/lib" / lib.name)
    for lib in (QT / "lib").glob("libicu*.so.*"):
        link_or_copy(lib, bundle / "PySide6/Qt/lib" / lib.name)
    m = measure_depends.measure(bundle)
    assert not m.unresolved, m.unresolved
    for package in (
        "libxcb1",
        "libxcb-cursor0",
        "libxcb-icccm4",
        "libxcb-keysyms1",
        "libxkbcommon-x11-0",
        "libegl1",
        "libfontconfig1",
        "libdbus-1-3",
        "fontconfig-config",
    ):
        assert package in m.depends, (package, m.depends)
    assert m.sonames["libxcb-cursor.so.0"] == "libxcb-cursor0"
    libc = [d for d in m.depends if d.startswith("libc6")]
    assert libc == [f"libc6 (>= {m.glibc})"]
    assert re.fullmatch(r"2\.\d+", m.glibc)
    assert m.glibc_from.endswith(".so") or ".so." in m.glibc_from
    assert "fontconfig-config" in m.data_depends  # a data file dependency, said apart
    assert m.depends == sorted(m.depends)


def test_what_the_bundle_ships_is_not_a_dependency(tmp_path: Path) -> None:
    """The plugin beside its own copy of libxcb-cursor: that one is no longer needed."""
    bundle = tmp_path / "bundle"
    link_or_copy(QT / "plugins/platforms/libqxcb.so", bundle / "plugins/platforms/libqxcb.so")
    cursor = Path(measure_depends.system_libraries()["libxcb-cursor.so.0"])
    link_or_copy(cursor.resolve(), bundle / "libxcb-cursor.so.0")
    m = measure_depends.measure(bundle)
    assert "libxcb-cursor0" not in m.depends
    assert "libxcb-icccm4" in m.depends  # still the system's
    assert "libQt6Core.so.6" in m.unresolved  # not shipped here and not on the system


def test_optional_plugins_and_what_only_they_link_are_optional(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    sql = bundle / "PySide6/Qt/plugins/sqldrivers"
    link_or_copy(QT / "plugins/platforms/libqxcb.so", bundle / "plugins/platforms/libqxcb.so")
    for driver in (QT / "plugins/sqldrivers").glob("*.so"):
        link_or_copy(driver, sql / driver.name)
    m = measure_depends.measure(bundle)
    assert measure_depends.is_optional(sql / "libqsqlite.so", bundle)
    assert not measure_depends.is_optional(bundle / "plugins/platforms/libqxcb.so", bundle)
    assert not set(m.optional) & set(m.depends)
    # only the SQL drivers link QtSql (not shipped in this "bundle"): not a blocker
    assert "libQt6Sql.so.6" in m.unresolved_optional
    assert "libQt6Sql.so.6" not in m.unresolved
    if "libpq.so.5" in m.sonames:  # PostgreSQL's client, where installed: a Suggests
        assert "libpq5" in m.optional


def test_snapshot_round_trip(tmp_path: Path) -> None:
    m = measure_depends.Measurement(
        depends=["libc6 (>= 2.36)", "libxcb1"],
        optional=["libwayland-client0"],
        glibc="2.36",
        glibc_from="_internal/libx.so",
        sonames={},
        unresolved={},
        unresolved_optional={},
        elf_files=2,
        dlopened=[],
        data_depends=[],
    )
    path = tmp_path / "depends.txt"
    path.write_text(measure_depends.snapshot_text(m))
    assert measure_depends.read_snapshot(path) == (m.depends, m.optional)


@pytest.mark.skipif(
    not (REAL_BUNDLE / "rilai").is_file(),
    reason=f"no real bundle at {REAL_BUNDLE}: `make package` (or RILAI_DIST=DIR) builds one",
)
def test_the_checked_in_snapshot_matches_the_real_bundle() -> None:
    depends, suggests = measure_depends.read_snapshot(LINUX / "depends.txt")
    m = measure_depends.measure(REAL_BUNDLE)
    assert (m.depends, m.optional) == (depends, suggests), (
        "the bundle's measured Depends changed: look at the difference, then refresh with "
        "python packaging/linux/measure_depends.py --bundle dist/rilai "
        "--write packaging/linux/depends.txt"
    )
