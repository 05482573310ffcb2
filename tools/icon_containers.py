"""Pack Rilai's rendered PNG icons into the two containers the installers want:
resources/icons/rilai.ico (Windows: the installer, the Start-menu shortcut, the uninstall
entry) and resources/icons/rilai.icns (macOS: the .app's CFBundleIconFile).

Both containers hold PNG images as they are, which every Windows since Vista and every
macOS since 10.7 reads, so no image library is needed: the standard library writes them
here and on any CI runner. tools/render_icons.py calls this after rendering the PNGs;
it also runs alone on the committed PNGs:

    python tools/icon_containers.py
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Windows asks for these sizes (the shell's small, large, extra-large and jumbo icons).
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# macOS icon types that hold PNG data, with the pixel size each one holds (the @2x types
# are the Retina image of half that point size). The same set Pillow writes.
ICNS_TYPES = {
    b"ic11": 32,  # 16 pt @2x
    b"ic12": 64,  # 32 pt @2x
    b"ic07": 128,
    b"ic13": 256,  # 128 pt @2x
    b"ic08": 256,
    b"ic14": 512,  # 256 pt @2x
    b"ic09": 512,
}


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the first chunk, by the PNG spec)."""
    if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def ico_bytes(pngs: Mapping[int, bytes]) -> bytes:
    """An ICO file: ICONDIR, one 16-byte ICONDIRENTRY per image, then the PNGs."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))  # reserved, type 1 = icon, count
    offset = len(header) + 16 * len(sizes)
    entries, images = [], []
    for size in sizes:
        data = pngs[size]
        if png_size(data) != (size, size):
            raise ValueError(f"the {size}px image is {png_size(data)}")
        if size > 256:
            raise ValueError("an ICO image is at most 256 px")
        side = 0 if size == 256 else size  # a width/height byte of 0 means 256
        entries.append(struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset))
        images.append(data)
        offset += len(data)
    return header + b"".join(entries) + b"".join(images)


def icns_bytes(pngs: Mapping[int, bytes]) -> bytes:
    """An ICNS file: the 'icns' magic and total length (big-endian), then one
    (type, length including its 8-byte header, PNG) element per icon type."""
    body = b""
    for kind, size in ICNS_TYPES.items():
        data = pngs[size]
        if png_size(data) != (size, size):
            raise ValueError(f"the {size}px image is {png_size(data)}")
        body += kind + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def read_pngs(folder: Path = ICONS) -> dict[int, bytes]:
    """The rendered rilai-<size>.png files, by size."""
    pngs = {}
    for path in folder.glob("rilai-*.png"):
        size = int(path.stem.removeprefix("rilai-"))
        pngs[size] = path.read_bytes()
    return pngs


def write_containers(folder: Path = ICONS) -> list[Path]:
    """Write rilai.ico and rilai.icns beside the PNGs they are made of."""
    pngs = read_pngs(folder)
    missing = sorted((set(ICO_SIZES) | set(ICNS_TYPES.values())) - set(pngs))
    if missing:
        raise SystemExit(f"missing PNG sizes {missing}: run tools/render_icons.py first")
    ico = folder / "rilai.ico"
    ico.write_bytes(ico_bytes({size: pngs[size] for size in ICO_SIZES}))
    icns = folder / "rilai.icns"
    icns.write_bytes(icns_bytes(pngs))
    return [ico, icns]


if __name__ == "__main__":
    for written in write_containers():
        print(written)
