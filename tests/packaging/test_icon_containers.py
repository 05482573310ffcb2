"""The .ico and .icns the installers use: packed from the rendered PNGs, kept up to date,
and readable by an independent reader (Qt's own ico and icns image plug-ins)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImageReader
from PySide6.QtWidgets import QApplication

from tools.icon_containers import (
    ICNS_TYPES,
    ICO_SIZES,
    ICONS,
    icns_bytes,
    ico_bytes,
    png_size,
    read_pngs,
    write_containers,
)


def sizes_qt_reads(data: bytes, fmt: bytes) -> list[tuple[int, int]]:
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer, QByteArray(fmt))
    sizes = []
    for index in range(reader.imageCount()):
        assert reader.jumpToImage(index)
        image = reader.read()
        assert not image.isNull(), reader.errorString()
        sizes.append((image.width(), image.height()))
    return sizes


def test_the_committed_containers_are_packed_from_the_committed_pngs() -> None:
    pngs = read_pngs()
    assert (ICONS / "rilai.ico").read_bytes() == ico_bytes({s: pngs[s] for s in ICO_SIZES}), (
        "rilai.ico is stale: run python tools/icon_containers.py"
    )
    assert (ICONS / "rilai.icns").read_bytes() == icns_bytes(pngs), (
        "rilai.icns is stale: run python tools/icon_containers.py"
    )


def test_the_ico_holds_every_windows_size_as_its_own_png(qapp: QApplication) -> None:
    data = (ICONS / "rilai.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, len(ICO_SIZES))
    pngs = read_pngs()
    for index, size in enumerate(ICO_SIZES):
        width, height, _, _, planes, bits, length, offset = struct.unpack(
            "<BBBBHHII", data[6 + 16 * index : 22 + 16 * index]
        )
        assert (width or 256, height or 256, planes, bits) == (size, size, 1, 32)
        assert data[offset : offset + length] == pngs[size]
    assert sizes_qt_reads(data, b"ico") == [(s, s) for s in ICO_SIZES]


def test_the_icns_holds_every_type_with_the_size_it_promises(qapp: QApplication) -> None:
    data = (ICONS / "rilai.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    seen, at = {}, 8
    while at < len(data):
        kind, length = data[at : at + 4], struct.unpack(">I", data[at + 4 : at + 8])[0]
        seen[kind] = png_size(data[at + 8 : at + length])
        at += length
    assert seen == {kind: (size, size) for kind, size in ICNS_TYPES.items()}
    assert sorted(sizes_qt_reads(data, b"icns")) == sorted((s, s) for s in ICNS_TYPES.values())


def test_a_png_of_the_wrong_size_is_refused() -> None:
    pngs = read_pngs()
    with pytest.raises(ValueError, match="32px"):
        ico_bytes({32: pngs[16]})
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))


def test_write_containers_writes_both_beside_the_pngs(tmp_path: Path) -> None:
    for path in ICONS.glob("rilai-*.png"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    written = write_containers(tmp_path)
    assert [p.name for p in written] == ["rilai.ico", "rilai.icns"]
    assert (tmp_path / "rilai.ico").read_bytes() == (ICONS / "rilai.ico").read_bytes()
    (tmp_path / "rilai-512.png").unlink()
    with pytest.raises(SystemExit, match=r"missing PNG sizes \[512\]"):
        write_containers(tmp_path)
