"""Every path of this repository that the docs name exists (issue 31: docs that are true).

A path is a backticked token in README.md or docs/ that starts with a top-level entry of
the repository (``rilai_desktop/``, ``tests/``, ``tools/``, ``Makefile`` …) or with one of
the package's sub-packages (``memory/items.py``, ``cli/evaluation/``), or ends in ``.py``.
It must name a tracked file or folder, whole or as the tail of one (``evaluation/plain.py``
is ``rilai_desktop/cli/evaluation/plain.py``); ``module.attribute`` (``app/memory_bridge.
said_line``) names its module. Paths that exist only at run time or in a build (``dist/``,
``data/memory/``, ``settings.toml``) start with none of these and are not checked.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
TICKED = re.compile(r"`([^`\n]+)`")
# other projects' files a doc quotes (how PyInstaller finds libraries), not ours
ELSEWHERE = {"PyInstaller/depend/dylib.py"}
# what `make setup` writes and git ignores: named by the docs, absent from a fresh clone
GENERATED = {"rilai_desktop/memory/minilm_onnx"}


@cache
def tracked() -> tuple[frozenset[str], frozenset[str]]:
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    files = frozenset(out)
    folders = frozenset(str(p) for f in out for p in PurePosixPath(f).parents if str(p) != ".")
    return files, folders


def docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _heads() -> set[str]:
    files, _ = tracked()
    tops = {f.split("/")[0] for f in files}
    package = {p.name for p in (ROOT / "rilai_desktop").iterdir() if p.is_dir()}
    return tops | package - {"__pycache__"}


def named_paths(text: str) -> list[str]:
    """The repository paths ``text`` names (see the module docstring)."""
    heads = _heads()
    found: list[str] = []
    for match in TICKED.finditer(text):
        token = match.group(1).strip().removeprefix("./")
        if " " in token or "://" in token or any(c in token for c in "<>*{}$~|=\\"):
            continue
        if re.search(r"NNNN|YYYY|bNN", token):
            continue
        token = re.sub(r"(::\S*|:\d+)$", "", token).rstrip(":,.;")
        first = token.split("/")[0]
        if token in ELSEWHERE or not token or token.startswith("/"):
            continue
        if ("/" in token and first in heads) or token.endswith(".py") or token in heads:
            found.append(token)
    return found


def exists(token: str) -> bool:
    files, folders = tracked()
    bare = token.rstrip("/")
    if bare in GENERATED:
        return True
    candidates = [bare]
    if "." in bare.split("/")[-1] and not bare.endswith(".py"):
        candidates.append(bare.rsplit(".", 1)[0] + ".py")  # module.attribute
    for c in candidates:
        if c in files or c in folders:
            return True
        tail = "/" + c
        if any(f.endswith(tail) for f in files) or any(d.endswith(tail) for d in folders):
            return True
    return False


@pytest.mark.parametrize("doc", docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    missing = [
        f"{doc.relative_to(ROOT)}:{n}: {token}"
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        for token in named_paths(line)
        if not exists(token)
    ]
    assert not missing, "\n".join(missing)


def test_the_path_finder_reads_what_it_should() -> None:
    line = (
        "`rilai_desktop/evaluation/plain.py`, `memory/items.py`, `dist/report.json`, "
        "`settings.toml`, `app/memory_bridge.said_line`, `make test`, `tests/x.py::test_a`"
    )
    assert named_paths(line) == [
        "rilai_desktop/evaluation/plain.py",
        "memory/items.py",
        "app/memory_bridge.said_line",
        "tests/x.py",
    ]
    assert not exists("rilai_desktop/evaluation/plain.py")  # moved under cli/ (issue 31)
    assert exists("evaluation/plain.py") and exists("app/memory_bridge.said_line")
