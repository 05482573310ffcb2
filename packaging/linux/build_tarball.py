"""Build the per-user tarball of a Rilai bundle.

    python packaging/linux/build_tarball.py --bundle dist/rilai --out dist/ [--level N]

Writes ``<out>/rilai-<version>-linux-<arch>.tar.gz`` (``--suffix -nomodels`` adds to the
name) holding one folder, ``rilai-<version>/``: the bundle as it is (``./rilai`` runs it in
place), plus ``install.sh`` (a per-user install into ~/.local, see its header) and the
``rilai.desktop`` template it fills in. Owners are root:root (numeric 0), modes 0755 for
programs and 0644 for the rest, as in the .deb.

Compressed with gzip at level 6 (``--level``), the GGUFs too. Measured on the real bundle
here: the app's files (1.27 GB) give 547 MB at level 1 in 26 s, 501 MB at level 6 in 66 s;
quantised GGUFs barely compress (about 2.7 %) and level 6 costs only ~20 % more time than
level 1 on them (18 s against 15 s for 491 MB), as gzip finds few matches to chase. Level 6
saves every download ~48 MB for under a minute of build. The archive is reproducible for
the same files (no gzip timestamp, sorted members). Standard library only.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_facts import LINUX_DIR, install_mode, read_bundle


def _members(bundle: Path) -> list[Path]:
    """Every path under the bundle, sorted, folders before their contents."""
    paths: list[Path] = []
    for dirpath, dirs, files in os.walk(bundle):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            paths.append(Path(dirpath) / name)
    return paths


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
    with (
        partial.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=level, fileobj=raw, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar,
    ):
        root_info = _normalised(tar.gettarinfo(str(facts.root), arcname=top), facts.root)
        tar.addfile(root_info)
        for path in [*extras, *_members(facts.root)]:
            if path in extras:
                arcname = f"{top}/{path.name}"
            else:
                arcname = f"{top}/{path.relative_to(facts.root)}"
            info = _normalised(tar.gettarinfo(str(path), arcname=arcname), path)
            if path.name == "install.sh":
                info.mode = 0o755
            if info.isfile():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=Path("dist/rilai"))
    parser.add_argument("--out", type=Path, default=Path("dist"))
    parser.add_argument("--level", type=int, default=6, help="gzip level (default 6)")
    parser.add_argument("--suffix", default="", help="added to the file name: -nomodels")
    args = parser.parse_args(argv)
    started = time.monotonic()
    tarball = build(args.bundle, args.out, level=args.level, suffix=args.suffix)
    size = tarball.stat().st_size
    print(f"{tarball} ({size / 1e6:.1f} MB, {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
