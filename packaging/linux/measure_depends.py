"""The Debian packages a Rilai bundle needs from the system, measured from its ELF files.

    python packaging/linux/measure_depends.py --bundle dist/rilai [--json] [--write FILE]

Walks every ELF file in the bundle (the executable, libpython, the extension modules, Qt's
libraries and plugins), reads what each one links against (``objdump -p``: its NEEDED
sonames and the symbol versions it requires), keeps the sonames no file of the bundle
provides, finds each on this system (``ldconfig -p``) and maps it to the Debian package
that owns it (``dpkg -S``). Only direct NEEDED entries count, as dpkg-shlibdeps does: a
library the bundle ships is itself walked, and a system library's own dependencies are its
package's business.

libc6 is versioned with the newest ``GLIBC_x.y`` any ELF of the bundle requires: that is
the oldest glibc the bundle runs on (the README's "needs glibc ≥ x.y").

Qt plugins for platforms and back-ends Rilai never uses on Linux (Wayland, EGLFS, VNC, SQL
drivers, the GTK theme, …) are measured apart: their packages are ``optional`` (the .deb's
``Suggests:``); Qt skips a plugin whose libraries are missing, so they never block a start.

Run with ``--write packaging/linux/depends.txt`` to refresh the checked-in snapshot that
tests/packaging/test_measure_depends.py compares with a fresh measurement of the real bundle.
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ELF_MAGIC = b"\x7fELF"

# Qt plugin folders (under .../Qt/plugins/) whose libraries are optional: Rilai's window is
# xcb on X11 (and XWayland); these back-ends, drivers and themes are only tried when present.
OPTIONAL_PLUGIN_DIRS = frozenset(
    {
        "designer",
        "egldeviceintegrations",
        "generic",
        "networkinformation",
        "platformthemes",
        "printsupport",
        "qmltooling",
        "sqldrivers",
        "tls",
        "wayland-decoration-client",
        "wayland-graphics-integration-client",
        "wayland-graphics-integration-server",
        "wayland-shell-integration",
        "multimedia",
        "position",
        "sensors",
        "renderers",
    }
)
# platforms/ plugins other than these (eglfs, linuxfb, vnc, wayland, vkkhrdisplay) are optional
REQUIRED_PLATFORMS = frozenset({"libqxcb.so", "libqoffscreen.so", "libqminimal.so"})

# Libraries loaded with dlopen() at run time, which no NEEDED entry names: (the bundled file
# that loads it, the soname, why). Added when that file is in the bundle and names the
# soname in its strings. Qt ≥ 6.5 loads libxcb-cursor this way in builds that do not link it
# (the PySide6 wheels of 6.6+ link it: then it is measured anyway); QtDBus built with
# "dbus runtime linking" loads libdbus-1 (the tray and notifications talk D-Bus).
KNOWN_DLOPEN: tuple[tuple[str, str, str], ...] = (
    ("libQt6XcbQpa.so.6", "libxcb-cursor.so.0", "Qt's xcb plugin: the mouse cursors"),
    ("libQt6DBus.so.6", "libdbus-1.so.3", "QtDBus: the tray icon and notifications"),
)

# Packages of files (not libraries) that a library of the bundle reads at run time, whether
# the library is bundled or the system's: (soname, package, why). Fontconfig without its
# configuration (/etc/fonts) and one font draws no text; fontconfig-config brings both
# (it depends on fonts-dejavu-core or another font).
DATA_DEPENDS: tuple[tuple[str, str, str], ...] = (
    ("libfontconfig.so.1", "fontconfig-config", "fontconfig's /etc/fonts and a font"),
)

GLIBC_RE = re.compile(r"\bGLIBC_(\d+)\.(\d+)(?:\.(\d+))?\b")
LIBC_SONAMES = frozenset(
    {
        "libc.so.6",
        "libm.so.6",
        "libdl.so.2",
        "libpthread.so.0",
        "librt.so.1",
        "libutil.so.1",
        "libresolv.so.2",
        "libanl.so.1",
        "libnsl.so.1",
        "ld-linux-x86-64.so.2",
        "ld-linux-aarch64.so.1",
    }
)


@dataclass
class ElfInfo:
    path: Path
    needed: list[str] = field(default_factory=list)
    glibc: tuple[int, ...] = ()


@dataclass
class Measurement:
    depends: list[str]  # sorted package names; libc6 carries its version: "libc6 (>= 2.34)"
    optional: list[str]  # packages only optional Qt plugins need (the .deb's Suggests)
    glibc: str  # the newest GLIBC_x.y any ELF requires, "2.34"
    glibc_from: str  # one file (relative to the bundle) that requires it
    sonames: dict[str, str]  # every system soname → its package
    unresolved: dict[str, list[str]]  # soname not on this system → required files needing it
    unresolved_optional: dict[str, list[str]]  # the same, needed by optional plugins only
    elf_files: int
    dlopened: list[str]  # sonames added from KNOWN_DLOPEN
    data_depends: list[str]  # packages added from DATA_DEPENDS

    def as_dict(self) -> dict[str, object]:
        return {
            "depends": self.depends,
            "optional": self.optional,
            "glibc": self.glibc,
            "glibc_from": self.glibc_from,
            "sonames": self.sonames,
            "unresolved": self.unresolved,
            "unresolved_optional": self.unresolved_optional,
            "elf_files": self.elf_files,
            "dlopened": self.dlopened,
            "data_depends": self.data_depends,
        }

    def control_depends(self) -> str:
        return ", ".join(self.depends)


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == ELF_MAGIC
    except OSError:
        return False


def elf_files(root: Path) -> list[Path]:
    """Every regular ELF file under ``root`` (symlinks are skipped: their targets count)."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink() and path.is_file() and is_elf(path):
                out.append(path)
    return sorted(out)


def read_elf(path: Path) -> ElfInfo:
    """NEEDED sonames and the newest GLIBC version ``path`` requires (``objdump -p``)."""
    done = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=False)
    info = ElfInfo(path)
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "NEEDED":
            info.needed.append(parts[1])
        for match in GLIBC_RE.finditer(line):
            version = tuple(int(x) for x in match.groups() if x is not None)
            info.glibc = max(info.glibc, version)
    return info


def is_optional(path: Path, root: Path) -> bool:
    """A Qt plugin Rilai's window never needs (see OPTIONAL_PLUGIN_DIRS)."""
    parts = path.relative_to(root).parts
    if "plugins" not in parts:
        return False
    after = parts[parts.index("plugins") + 1 :]
    if not after:
        return False
    if after[0] == "platforms":
        return after[-1] not in REQUIRED_PLATFORMS
    return after[0] in OPTIONAL_PLUGIN_DIRS


def optional_elves(infos: list[ElfInfo], root: Path) -> set[Path]:
    """The optional plugins, and the bundled libraries only they load (Qt's Wayland client
    library, say): a library is optional when something in the bundle links it and all of
    those are optional. One nothing links (libpython, libllama: loaded with dlopen) stays."""
    optional = {i.path for i in infos if is_optional(i.path, root)}
    users: dict[str, set[Path]] = {}
    for info in infos:
        for soname in info.needed:
            users.setdefault(soname, set()).add(info.path)
    changed = True
    while changed:
        changed = False
        for info in infos:
            linked_by = users.get(info.path.name, set()) - {info.path}
            if info.path not in optional and linked_by and linked_by <= optional:
                optional.add(info.path)
                changed = True
    return optional


def system_libraries() -> dict[str, str]:
    """soname → path, from the dynamic linker's cache (this machine's architecture only)."""
    done = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=False)
    machine = os.uname().machine
    want = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(machine, "")
    out: dict[str, str] = {}
    for line in done.stdout.splitlines()[1:]:
        name, _, rest = line.strip().partition(" (")
        flags, _, path = rest.partition(") => ")
        if path and (not want or want in flags):
            out.setdefault(name, path.strip())
    return out


def owning_packages(paths: Iterable[str]) -> dict[str, str]:
    """path → Debian package (one ``dpkg -S`` for all; /lib and /usr/lib are tried both
    ways, as the merged-/usr layout leaves the dpkg database naming either)."""
    wanted: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        candidates = [path, os.path.realpath(path)]
        for c in list(candidates):
            if c.startswith("/usr/lib/"):
                candidates.append(c[len("/usr") :])
            elif c.startswith("/lib/"):
                candidates.append("/usr" + c)
        wanted[path] = list(dict.fromkeys(candidates))
    every = sorted({c for cs in wanted.values() for c in cs})
    if not every:
        return {}
    done = subprocess.run(["dpkg", "-S", *every], capture_output=True, text=True, check=False)
    owner: dict[str, str] = {}
    for line in done.stdout.splitlines():
        packages, sep, path = line.partition(": ")
        if sep and path.strip() in every:
            owner[path.strip()] = packages.split(",")[0].split(":")[0].strip()
    out: dict[str, str] = {}
    for path, candidates in wanted.items():
        found = next((owner[c] for c in candidates if c in owner), None)
        if found is not None:
            out[path] = found
    return out


def dlopened(infos: list[ElfInfo]) -> list[tuple[str, Path]]:
    """(soname, the file that loads it) for each KNOWN_DLOPEN entry found in the bundle."""
    found = []
    for info in infos:
        for trigger, soname, _why in KNOWN_DLOPEN:
            if info.path.name == trigger and soname.encode() in info.path.read_bytes():
                found.append((soname, info.path))
    return found


def measure(root: Path, jobs: int = 4) -> Measurement:
    root = root.resolve()
    files = elf_files(root)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        infos = list(pool.map(read_elf, files))
    shipped = {path.name for path in root.rglob("*")}
    optional_files = optional_elves(infos, root)
    needs: dict[str, dict[str, bool]] = {}  # soname → {relative file: optional?}
    for info in infos:
        for soname in info.needed:
            if soname not in shipped:
                rel = str(info.path.relative_to(root))
                needs.setdefault(soname, {})[rel] = info.path in optional_files
    extra = dlopened(infos)
    for soname, path in extra:
        if soname not in shipped:
            needs.setdefault(soname, {})[str(path.relative_to(root))] = False

    system = system_libraries()
    packages = owning_packages(system[s] for s in needs if s in system)
    sonames: dict[str, str] = {}
    unresolved: dict[str, list[str]] = {}
    unresolved_optional: dict[str, list[str]] = {}
    required: set[str] = set()
    optional: set[str] = set()
    for soname, users in sorted(needs.items()):
        package = packages.get(system.get(soname, ""))
        if package is None:
            (unresolved_optional if all(users.values()) else unresolved)[soname] = sorted(users)
            continue
        sonames[soname] = package
        (optional if all(users.values()) else required).add(package)

    data = [p for soname, p, _why in DATA_DEPENDS if soname in shipped or soname in needs]
    required.update(data)

    newest = max(infos, key=lambda i: i.glibc, default=None)
    glibc = ".".join(str(x) for x in newest.glibc) if newest and newest.glibc else ""
    depends = sorted(required)
    if glibc:
        depends = [f"libc6 (>= {glibc})" if p == "libc6" else p for p in depends]
        if "libc6" not in required:
            depends = sorted([*depends, f"libc6 (>= {glibc})"])
    return Measurement(
        depends=depends,
        optional=sorted(optional - required),
        glibc=glibc,
        glibc_from=str(newest.path.relative_to(root)) if newest and newest.glibc else "",
        sonames=sonames,
        unresolved=unresolved,
        unresolved_optional=unresolved_optional,
        elf_files=len(files),
        dlopened=sorted({s for s, _ in extra}),
        data_depends=sorted(data),
    )


def snapshot_text(m: Measurement) -> str:
    """The checked-in depends.txt: one package a line; a comment says where it came from."""
    lines = [
        "# measured by packaging/linux/measure_depends.py --write (do not edit by hand)",
        f"# glibc >= {m.glibc} (newest GLIBC_ symbol version, from {m.glibc_from})",
        *m.depends,
    ]
    lines += [f"suggests: {p}" for p in m.optional]
    return "\n".join(lines) + "\n"


def read_snapshot(path: Path) -> tuple[list[str], list[str]]:
    """(depends, suggests) of a depends.txt."""
    depends, suggests = [], []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("suggests:"):
            suggests.append(line.split(":", 1)[1].strip())
        else:
            depends.append(line)
    return depends, suggests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=Path("dist/rilai"))
    parser.add_argument("--json", action="store_true", help="the whole measurement as JSON")
    parser.add_argument("--write", type=Path, metavar="FILE", help="write the snapshot here")
    args = parser.parse_args(argv)
    if not args.bundle.is_dir():
        print(f"measure_depends: no bundle at {args.bundle}", file=sys.stderr)
        return 2
    m = measure(args.bundle)
    if args.write:
        args.write.write_text(snapshot_text(m))
    if args.json:
        print(json.dumps(m.as_dict(), indent=1))
    else:
        print("\n".join(m.depends))
        if m.unresolved:
            print(f"# NOT on this system: {', '.join(m.unresolved)}", file=sys.stderr)
        if m.unresolved_optional:
            names = ", ".join(m.unresolved_optional)
            print(f"# not on this system (optional plugins only): {names}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
