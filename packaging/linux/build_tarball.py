"""Build the per-user tarball of a Rilai bundle.

    python packaging/linux/build_tarball.py --bundle dist/rilai --out dist/ [--level N]

Writes ``<out>/rilai-<version>-linux-<arch>.tar.gz`` (``--suffix -nomodels`` adds to the
name) holding one folder, ``rilai-<version>/``: the bundle as it is (``./rilai`` runs it in
place), plus ``install.sh`` (a per-user install into ~/.local, see its header) and the
``rilai.desktop`` template it fills in. Owners are root:root (numeric 0), modes 0755 for
programs and 0644 for the rest, as in the .deb.

Compression: the app's files at gzip level 6 (``--level``), the GGUF models at level 1.
Quantised GGUFs barely compress (level 1 and 6 differ by about 0.1 % on them) while level
6 takes about three times as long over their 1.7 GB; the .tar.gz is two gzip members one
after the other, which gzip, tar and Python's tarfile read as one stream. Standard library
only.
"""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import time
import zlib
from pathlib import Path
from typing import BinaryIO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_facts import LINUX_DIR, install_mode, read_bundle

MODEL_SUFFIX = ".gguf"
MODEL_LEVEL = 1


class _GzipMembers:
    """A write-only file that gzips what it is given; ``level(n)`` ends the current gzip
    member and starts the next at level ``n``."""

    def __init__(self, raw: BinaryIO, level: int) -> None:
        self.raw = raw
        self._z = zlib.compressobj(level, zlib.DEFLATED, 31)  # 31: with a gzip header
        self.current = level

    def level(self, level: int) -> None:
        if level != self.current:
            self.raw.write(self._z.flush())
            self._z = zlib.compressobj(level, zlib.DEFLATED, 31)
            self.current = level

    def write(self, data: bytes) -> int:
        self.raw.write(self._z.compress(data))
        return len(data)

    def close(self) -> None:
        self.raw.write(self._z.flush())


def _members(bundle: Path) -> list[Path]:
    """Every path under the bundle, folders before their contents, the GGUFs last."""
    paths: list[Path] = []
    for dirpath, dirs, files in os.walk(bundle):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            paths.append(Path(dirpath) / name)
    return sorted(paths, key=lambda p: (p.name.endswith(MODEL_SUFFIX), 0))


def _normalised(info: tarfile.TarInfo, source: Path) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    if info.isdir():
        info.mode = 0o755
    elif info.isfile():
        info.mode = install_mode(source)
    return info


def build(bundle: Path, out: Path, *, level: int = 6, suffix: str = "") -> Path:
    facts = read_bundle(bundle)
    top = f"rilai-{facts.version}"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"rilai-{facts.version}-linux-{facts.machine}{suffix}.tar.gz"
    partial = target.with_name(target.name + ".part")
    extras = [LINUX_DIR / "install.sh", LINUX_DIR / "rilai.desktop"]
    with partial.open("wb") as raw:
        gz = _GzipMembers(raw, level)
        with tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT) as tar:  # type: ignore[call-overload]
            root_info = _normalised(tar.gettarinfo(str(facts.root), arcname=top), facts.root)
            tar.addfile(root_info)
            for path in [*extras, *_members(facts.root)]:
                if path in extras:
                    arcname = f"{top}/{path.name}"
                else:
                    arcname = f"{top}/{path.relative_to(facts.root)}"
                if path.name.endswith(MODEL_SUFFIX):
                    gz.level(MODEL_LEVEL)
                info = _normalised(tar.gettarinfo(str(path), arcname=arcname), path)
                if path.name == "install.sh":
                    info.mode = 0o755
                if info.isfile():
                    with path.open("rb") as handle:
                        tar.addfile(info, handle)
                else:
                    tar.addfile(info)
        gz.close()
    partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=Path("dist/rilai"))
    parser.add_argument("--out", type=Path, default=Path("dist"))
    parser.add_argument("--level", type=int, default=6, help="gzip level of the app's files")
    parser.add_argument("--suffix", default="", help="added to the file name: -nomodels")
    args = parser.parse_args(argv)
    started = time.monotonic()
    tarball = build(args.bundle, args.out, level=args.level, suffix=args.suffix)
    size = tarball.stat().st_size
    print(f"{tarball} ({size / 1e6:.1f} MB, {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
