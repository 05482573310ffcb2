"""The one reader of the ``prompts/`` folder (agents, council, voice, critics).

The composition root builds one :class:`Prompts` from ``paths.prompts_dir`` and hands it to
``build_turn_runner``, which hands it to each stage; nothing in ``turn/`` locates the folder
itself. Files are named relative to the folder (``"voice/system.md"``), read as UTF-8 and
cached until they change on disk (size or modification time), so a prompt edited while the
app runs is picked up on the next read.

``read(name)`` raises :class:`~rilai_desktop.errors.AgentManifestError` naming the file when
it is missing, unreadable, not UTF-8 or over ``MAX_FILE_BYTES``. ``get(name)`` returns None
instead, for the stages that keep a built-in text so a turn never fails for a prompt file
(the voice's system and intent lines, the fallback and safety replies, the council's and the
judge's templates).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from rilai_desktop.errors import AgentManifestError

MAX_FILE_BYTES: Final[int] = 64 * 1024  # a manifest or prompt is a few hundred bytes


class Prompts:
    """The prompt files under ``folder``: read once, re-read when they change."""

    def __init__(self, folder: Path) -> None:
        self._folder = Path(folder)
        self._cache: dict[Path, tuple[int, int, str]] = {}  # path → (mtime_ns, size, text)

    def __repr__(self) -> str:
        return f"Prompts({str(self._folder)!r})"

    @property
    def folder(self) -> Path:
        return self._folder

    def path(self, name: str | Path) -> Path:
        """Where ``name`` (relative to the folder, or already under it) lives."""
        name = Path(name)
        return name if name.is_absolute() else self._folder / name

    def read(self, name: str | Path) -> str:
        """The file's text; AgentManifestError naming the file when it cannot be read."""
        path = self.path(name)
        try:
            stat = path.stat()
            if stat.st_size > MAX_FILE_BYTES:
                raise manifest_error(
                    path, f"file is {stat.st_size} bytes", "Manifests and prompts are small"
                )
            cached = self._cache.get(path)
            if cached is not None and cached[:2] == (stat.st_mtime_ns, stat.st_size):
                return cached[2]
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise manifest_error(path, "file is missing", f"Create {path}") from None
        except UnicodeDecodeError:
            raise manifest_error(path, "file is not UTF-8 text", "Save it as UTF-8") from None
        except OSError as exc:
            raise manifest_error(
                path, f"cannot read: {exc.strerror or exc}", "Check permissions"
            ) from None
        self._cache[path] = (stat.st_mtime_ns, stat.st_size, text)
        return text

    def get(self, name: str | Path) -> str | None:
        """The file's text, or None when ``read`` would raise (a stage with built-in text)."""
        try:
            return self.read(name)
        except AgentManifestError:
            return None


def manifest_error(path: Path, problem: str, fix: str | None = None) -> AgentManifestError:
    """The message names the file, the problem and (when there is one) the fix."""
    hints = [fix] if fix else []
    hints.append("See docs/agents.md for the manifest fields")
    message = f"{path}: {problem}" + (f". Fix: {fix}" if fix else "")
    return AgentManifestError(message, context={"path": str(path)}, recovery_suggestions=hints)
