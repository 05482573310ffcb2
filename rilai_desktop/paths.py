"""Where Rilai keeps things. The only module that talks to platformdirs.

``RILAI_HOME`` overrides every location (tests and portable installs use it):
``$RILAI_HOME/{data,config,cache,logs}``. Directories are created owner-only (0700).

Rilai's read-only files (``prompts/``, ``resources/``, ``models/models.toml``) sit beside the
package: in a source checkout that is the repository; in the frozen bundle (PyInstaller,
``packaging/rilai.spec``) it is the bundle's ``_internal/`` folder (``sys._MEIPASS``), which
may also hold the default GGUFs under ``models/`` (a release build ships them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from rilai_desktop.errors import DataDirError

APP_NAME = "rilai"
DB_FILENAME = "rilai.db"
PACKAGE_DIR = Path(__file__).resolve().parent


def is_frozen() -> bool:
    """True inside the PyInstaller bundle (an installed Rilai, not a checkout)."""
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


# The folder holding prompts/, resources/ and models/: the checkout, or the bundle's _internal/
REPO_ROOT = Path(getattr(sys, "_MEIPASS", "")).resolve() if is_frozen() else PACKAGE_DIR.parent


def is_dev_checkout() -> bool:
    """True when running from a source checkout (pyproject.toml and models/ beside us)."""
    return (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "models").is_dir()


def bundle_ships_models(root: Path | None = None) -> bool:
    """True when an installed bundle carries GGUF files in its own models/ folder."""
    if root is None:
        if not is_frozen():
            return False
        root = REPO_ROOT
    folder = root / "models"
    return folder.is_dir() and any(folder.glob("*.gguf"))


@dataclass(frozen=True)
class Paths:
    data_dir: Path
    config_dir: Path
    cache_dir: Path
    log_dir: Path
    home_override: Path | None = None

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_FILENAME

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    @property
    def categories_dir(self) -> Path:
        return self.data_dir / "categories"

    models_override: Path | None = None

    def scratch(self, home: Path) -> Paths:
        """These paths with the data and logs under ``home`` (an empty folder of its own)
        and the same settings, cache and models: what benches and evaluations open a fresh
        Rilai in, without touching the person's data."""
        return dataclasses.replace(
            self,
            data_dir=home / "data",
            log_dir=home / "logs",
            home_override=home,
            models_override=self.models_dir,
        )

    @property
    def models_dir(self) -> Path:
        """Where the GGUF files are: ``RILAI_MODELS_DIR`` if set; else the repo's ``models/``
        in a dev checkout (unless RILAI_HOME is set); else the bundle's own ``models/`` when
        an installed bundle ships them (read-only); else data/models, where
        ``rilai models install`` assembles them."""
        if self.models_override is not None:
            return self.models_override
        if self.home_override is None and is_dev_checkout():
            return REPO_ROOT / "models"
        if bundle_ships_models():
            return REPO_ROOT / "models"
        return self.data_dir / "models"

    @property
    def prompts_dir(self) -> Path:
        """The text the models read (agents, council, voice, critics): shipped, read-only."""
        return REPO_ROOT / "prompts"

    @property
    def manifest_file(self) -> Path:
        """The shipped tier → model manifest (never edited by the app)."""
        return REPO_ROOT / "models" / "models.toml"

    @property
    def user_manifest_file(self) -> Path:
        """The user's overlay: `rilai models use/add` write here."""
        return self.config_dir / "models.toml"

    def as_dict(self) -> dict[str, str]:
        return {
            "data_dir": str(self.data_dir),
            "config_dir": str(self.config_dir),
            "cache_dir": str(self.cache_dir),
            "log_dir": str(self.log_dir),
            "db_path": str(self.db_path),
            "settings_file": str(self.settings_file),
            "models_dir": str(self.models_dir),
        }


def resolve_paths(env: Mapping[str, str] | None = None) -> Paths:
    env = os.environ if env is None else env
    models = env.get("RILAI_MODELS_DIR", "").strip()
    models_override = Path(models).expanduser().resolve() if models else None
    home = env.get("RILAI_HOME", "").strip()
    if home:
        root = Path(home).expanduser().resolve()
        return Paths(
            data_dir=root / "data",
            config_dir=root / "config",
            cache_dir=root / "cache",
            log_dir=root / "logs",
            home_override=root,
            models_override=models_override,
        )
    return Paths(
        data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        models_override=models_override,
    )


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (0700) if missing and check that we can write in it."""
    if path.exists() and not path.is_dir():
        raise DataDirError(
            f"{path} exists but is not a directory",
            context={"path": str(path)},
            recovery_suggestions=[
                f"Move the file aside: mv {path} {path}.bak",
                "Or point Rilai elsewhere: RILAI_HOME=/some/writable/dir rilai ...",
            ],
        )
    try:
        make_private_dirs(path)  # its missing parents (RILAI_HOME) too, whatever the umask
    except OSError as exc:
        raise DataDirError(
            f"Cannot create directory {path}: {exc.strerror or exc}",
            context={"path": str(path)},
        ) from exc
    if not path.is_dir():
        raise DataDirError(f"{path} exists but is not a directory", context={"path": str(path)})
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077 and os.access(path, os.W_OK):
        # tighten a directory we own; never loosen anything
        with contextlib.suppress(OSError):
            path.chmod(0o700)
    if not os.access(path, os.W_OK | os.X_OK):
        if _read_only_mount(path):  # chmod cannot help: say what can
            raise DataDirError(
                f"Directory {path} is not writable: it is on a read-only file system"
                " (what is in it was not touched)",
                context={"path": str(path)},
                recovery_suggestions=[
                    "Remount that disk read-write (or take it out of read-only mode),"
                    " then start Rilai again",
                    "Or point Rilai elsewhere: RILAI_HOME=/some/writable/dir rilai ...",
                ],
            )
        raise DataDirError(
            f"Directory {path} is not writable",
            context={"path": str(path)},
        )
    return path


def _read_only_mount(path: Path) -> bool:
    """True when ``path`` is on a file system mounted read-only (POSIX only)."""
    if not hasattr(os, "statvfs"):
        return False
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def make_private_dirs(path: Path) -> Path:
    """Create ``path`` and every missing parent owner-only (0700) whatever the umask:
    ``Path.mkdir(parents=True, mode=0o700)`` gives the parents the umask's mode (0777 under
    umask 000). Folders that exist already are left as they are."""
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by someone else: theirs to keep
            continue
        folder.chmod(0o700)
    return path


def private_opener(path: str, flags: int) -> int:
    """``open(path, mode, opener=private_opener)``: a file the app creates is 0600 whatever
    the umask, and one it rewrites is tightened to 0600 (it holds what the person wrote)."""
    fd = os.open(path, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd
