"""Build the Debian package of a Rilai bundle.

    python packaging/linux/build_deb.py --bundle dist/rilai --out dist/ [--compression zstd|gzip]

Writes ``<out>/rilai_<version>_<arch>.deb`` (``--suffix -nomodels`` adds to the name) with
``dpkg-deb --root-owner-group``, from a staging tree:

    /opt/rilai/                       the bundle (the `rilai` executable, _internal/, licenses/)
    /usr/bin/rilai                    -> /opt/rilai/rilai (PyInstaller's bootloader finds its
                                      folder through the link: /proc/self/exe)
    /usr/share/applications/rilai.desktop
    /usr/share/icons/hicolor/<N>x<N>/apps/rilai.png, scalable/apps/rilai.svg
    /usr/share/doc/rilai/copyright    machine-readable; points at /opt/rilai/licenses/
    DEBIAN/control, DEBIAN/md5sums

``Depends:`` is measured from the bundle at build time (measure_depends.py); the optional Qt
plugins' packages go to ``Suggests:``. No maintainer scripts: on Debian 12 and Ubuntu the
desktop database and the hicolor icon cache are refreshed by dpkg triggers that
desktop-file-utils and hicolor-icon-theme declare (``interest-noawait``).

Staging links the bundle's files (no copy of the GGUFs) where it can. Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import gzip
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_facts import (
    LINUX_DIR,
    Bundle,
    icons,
    install_mode,
    installed_kib,
    read_bundle,
)
from measure_depends import Measurement, measure

MAINTAINER = os.environ.get(
    "RILAI_DEB_MAINTAINER",
    "Rilai maintainers <maintainers@users.noreply.a-seed-86a00757.example>",
)
DESCRIPTION = """local-first AI companion that runs offline
 Rilai is a companion you talk to that remembers what matters to you, with
 memory you can see and edit and moods that fade. Everything runs on this
 computer: the language models, the memory and the window. It needs no
 network and no account; the default models are inside the package (unless
 this is a build without models, which offers to install them on first run)."""


def _place(src: Path, dst: Path) -> None:
    """``dst`` gets ``src``'s bytes: a hard link when the mode is already right (no copy of
    gigabytes of models), else a copy with the mode made right."""
    wanted = install_mode(src)
    if stat.S_IMODE(src.stat().st_mode) == wanted:
        try:
            os.link(src, dst)
            return
        except OSError:
            pass
    shutil.copyfile(src, dst)
    os.chmod(dst, wanted)


def stage_bundle(bundle: Path, target: Path) -> None:
    """The bundle at ``target``: directories 0755, files linked or copied, symlinks kept."""
    for dirpath, dirs, files in os.walk(bundle):
        rel = Path(dirpath).relative_to(bundle)
        here = target / rel
        here.mkdir(mode=0o755, parents=True, exist_ok=True)
        os.chmod(here, 0o755)
        for name in [*files, *(d for d in dirs if (Path(dirpath) / d).is_symlink())]:
            src = Path(dirpath) / name
            if src.is_symlink():
                os.symlink(os.readlink(src), here / name)
            else:
                _place(src, here / name)


def _md5sums(root: Path) -> str:
    lines = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not (dirpath == str(root) and d == "DEBIAN")]
        for name in sorted(files):
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            digest = hashlib.md5(usedforsecurity=False)
            with path.open("rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
            lines.append(f"{digest.hexdigest()}  {path.relative_to(root)}")
    return "\n".join(sorted(lines, key=lambda line: line[34:])) + "\n"


def _changelog(facts: Bundle) -> bytes:
    """A native package's changelog.gz (gzip without a timestamp: reproducible)."""
    when = email.utils.format_datetime(
        datetime.datetime.fromtimestamp(
            int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or time.time(), datetime.UTC
        )
    )
    text = (
        f"rilai ({facts.version}) unstable; urgency=medium\n\n"
        f"  * Release {facts.version}: see the project's README.\n\n"
        f" -- {MAINTAINER}  {when}\n"
    )
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def control_text(facts: Bundle, depends: Measurement, installed: int) -> str:
    fields = [
        ("Package", "rilai"),
        ("Version", facts.version),
        ("Architecture", facts.deb_arch),
        ("Maintainer", MAINTAINER),
        ("Installed-Size", str(installed)),
        ("Depends", depends.control_depends()),
        ("Suggests", ", ".join(depends.optional)),
        ("Section", "utils"),
        ("Priority", "optional"),
        ("Description", DESCRIPTION),
    ]
    return "".join(f"{key}: {value}\n" for key, value in fields if value)


def stage(facts: Bundle, root: Path, depends: Measurement) -> None:
    """Everything the package installs, under ``root``, and its DEBIAN/ folder."""
    stage_bundle(facts.root, root / "opt" / "rilai")
    for folder in ("usr/bin", "usr/share/applications", "usr/share/doc/rilai", "DEBIAN"):
        (root / folder).mkdir(mode=0o755, parents=True, exist_ok=True)
    os.symlink("/opt/rilai/rilai", root / "usr" / "bin" / "rilai")
    shutil.copyfile(LINUX_DIR / "rilai.desktop", root / "usr/share/applications/rilai.desktop")
    shutil.copyfile(LINUX_DIR / "copyright", root / "usr/share/doc/rilai/copyright")
    (root / "usr/share/doc/rilai/changelog.gz").write_bytes(_changelog(facts))
    for size, icon in icons(facts.root):
        apps = root / "usr/share/icons/hicolor" / size / "apps"
        apps.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copyfile(icon, apps / ("rilai" + icon.suffix))
    for dirpath, dirs, files in os.walk(root / "usr"):
        for name in dirs:
            os.chmod(Path(dirpath) / name, 0o755)
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink():
                os.chmod(path, 0o644)
    for top in (root, root / "opt", root / "usr"):
        os.chmod(top, 0o755)
    installed = installed_kib(root) - installed_kib(root / "DEBIAN")
    (root / "DEBIAN" / "md5sums").write_text(_md5sums(root))
    (root / "DEBIAN" / "control").write_text(control_text(facts, depends, installed))
    os.chmod(root / "DEBIAN", 0o755)
    for name in ("control", "md5sums"):
        os.chmod(root / "DEBIAN" / name, 0o644)


def build(
    bundle: Path,
    out: Path,
    *,
    compression: str = "zstd",
    suffix: str = "",
    level: int | None = None,
) -> Path:
    facts = read_bundle(bundle)
    depends = measure(facts.root)
    if depends.unresolved:
        raise SystemExit(
            "build_deb: libraries the bundle links are not installed here, so their "
            f"packages cannot be named: {', '.join(sorted(depends.unresolved))} — install them "
            "(tools/setup.sh lists the GUI libraries) and build again"
        )
    out.mkdir(parents=True, exist_ok=True)
    deb = out / f"rilai_{facts.version}_{facts.deb_arch}{suffix}.deb"
    work = Path(tempfile.mkdtemp(prefix=".deb-staging-", dir=out))
    try:
        root = work / "root"
        root.mkdir(mode=0o755)
        stage(facts, root, depends)
        command = ["dpkg-deb", "--root-owner-group", f"-Z{compression}"]
        if level is not None:
            command.append(f"-z{level}")
        partial = deb.with_name(deb.name + ".part")
        subprocess.run(
            [*command, "--build", str(root), str(partial)], check=True, stdout=subprocess.DEVNULL
        )
        partial.replace(deb)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return deb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=Path("dist/rilai"))
    parser.add_argument("--out", type=Path, default=Path("dist"))
    parser.add_argument("--compression", choices=["zstd", "gzip", "xz"], default="zstd")
    parser.add_argument("--level", type=int, help="compression level (dpkg-deb -z)")
    parser.add_argument("--suffix", default="", help="added to the file name: -nomodels")
    args = parser.parse_args(argv)
    started = time.monotonic()
    deb = build(
        args.bundle, args.out, compression=args.compression, suffix=args.suffix, level=args.level
    )
    size = deb.stat().st_size
    print(f"{deb} ({size / 1e6:.1f} MB, {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
