"""The GGUF file each tier uses, for a client to show and change (the settings dialog).

The tiers are configured where `rilai models use/add` configure them: the shipped manifest
(``models/models.toml``) under the user's overlay (``<config dir>/models.toml``). Choosing
a file for a tier writes a ``user_file`` model to that overlay and points the tier at it —
the same store the router reads at start, never a second one. The file is refused unless it
exists and starts with the GGUF magic bytes.

``rows()`` is cheap (a stat per file and the installer's ``.verified.json`` cache): a file
whose hash is not in the cache says "not verified" until ``verify(tier)`` hashes it, which
reads the whole file and belongs on a background thread.

From the window a tier's model is also installed and removed (issue 31, item 3):
``install(tiers, progress, cancel)`` is the first-run install (``models_setup.ModelsSetup``:
registry packages, sha256-verified, cancellable) for any tier; ``removal(tier)`` says what
removing its file would free, or refuses, and ``remove(tier)`` deletes it. Only a file the
app installed is ever deleted: a manifest model (registry packages or a verified download)
at its own name inside the models folder, whose sha256 the installer recorded — never a
file the person chose (``user_file``), a symlink, anything outside the models folder, or
the models an installed bundle carries. A file the engine has loaded is refused: the router
cannot unload a model, so the file stays until Rilai is restarted without it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, TypeVar

from rilai_desktop.app.models_setup import ModelsSetup, TierProgress
from rilai_desktop.llm.errors import InstallError
from rilai_desktop.llm.gguf import check_file
from rilai_desktop.llm.installer import HashFile, PipInstall, cached_sha256, forget, verify
from rilai_desktop.llm.manifest import (
    TIERS,
    ModelEntry,
    ModelSource,
    endpoint_entry,
    load_manifest,
    update_overlay,
)
from rilai_desktop.paths import REPO_ROOT, Paths, is_frozen

T = TypeVar("T")
# what the engine's router has loaded (resolved paths), and how to run a job between turns
Loaded = Callable[[], Sequence[str]]
Exclusive = Callable[[Callable[[], T]], T]
# where an app-installed model comes from: registry packages, or `rilai models download`
INSTALLED_KINDS: Final = ("package_file", "package_chunks", "url")

VERIFIED: Final = "verified"
NOT_VERIFIED: Final = "not verified"
MISSING: Final = "missing"
MISMATCH: Final = "does not match the manifest"
CUSTOM: Final = "custom file"


@dataclass(frozen=True)
class TierModel:
    """One tier's file: ``state`` is verified / not verified / missing / does not match the
    manifest, or "custom file" (with "not verified" unless the cache has its hash)."""

    tier: str
    model_id: str
    name: str
    path: Path
    size: int | None
    state: str
    custom: bool
    installable: bool = False  # from registry packages, here (a checkout: pip can fetch)


@dataclass(frozen=True)
class Removal:
    """What removing a tier's file would do: ``tiers`` is every tier using that file."""

    tiers: tuple[str, ...]
    model_id: str
    name: str
    path: Path
    size: int


def _state(entry: ModelEntry, path: Path, models_dir: Path, *, hashed: str | None) -> str:
    if not path.is_file():
        return MISSING
    custom = entry.source.kind == "user_file"
    if entry.size is not None and path.stat().st_size != entry.size:
        return MISMATCH
    if hashed is None:
        return f"{CUSTOM} ({NOT_VERIFIED})" if custom else NOT_VERIFIED
    if entry.sha256 is not None and hashed != entry.sha256:
        return MISMATCH
    if custom:
        return f"{CUSTOM} (sha256 {hashed[:12]}…)"
    return VERIFIED


def endpoint_health(entry: ModelEntry) -> str:
    """ "remote: URL · answers" or "… · not answering" (GET /models, 3 s; never on the GUI
    thread: "Verify files" runs it on its background thread)."""
    import httpx

    url = (entry.source.url or "").rstrip("/")
    try:
        httpx.get(f"{url}/models", timeout=3.0).raise_for_status()
    except httpx.HTTPError:
        return f"remote: {url} · not answering (turns fall back to this computer)"
    return f"remote: {url} · answers"


def _run_now(fn: Callable[[], T]) -> T:
    return fn()


def _nothing_loaded() -> list[str]:
    return []


class ModelFiles:
    """Rows for the tiers, a file chosen for a tier, a tier's file verified, installed or
    removed. ``loaded``: the engine's loaded model files; ``exclusive``: runs a removal
    where no turn runs (the engine's worker); ``manifest_file``, ``pip``, ``hash_file``,
    ``can_fetch`` and ``bundled`` are seams for tests (``bundled``: the models folder is
    the one an installed bundle carries)."""

    def __init__(
        self,
        paths: Paths,
        *,
        loaded: Loaded = _nothing_loaded,
        exclusive: Exclusive[object] = _run_now,
        manifest_file: Path | None = None,
        pip: PipInstall | None = None,
        hash_file: HashFile | None = None,
        can_fetch: bool | None = None,
        bundled: bool | None = None,
    ) -> None:
        self._paths = paths
        self._manifest_file = manifest_file or paths.manifest_file
        self._loaded = loaded
        self._exclusive = exclusive
        self.setup = ModelsSetup(
            paths.models_dir,
            self._manifest_file,
            paths.user_manifest_file,
            pip=pip,
            hash_file=hash_file,
            can_fetch=can_fetch,
        )
        if bundled is None:
            bundled = is_frozen() and paths.models_dir == REPO_ROOT / "models"
        self._bundled = bundled

    def _row(self, tier: str, entry: ModelEntry, hashed: str | None) -> TierModel:
        if entry.source.kind == "endpoint":  # a tier on another machine (docs/api.md)
            url = entry.source.url or ""
            return TierModel(tier=tier, model_id=entry.id, name=entry.name, path=Path(url),
                             size=None, state=f"remote: {url}", custom=True)  # fmt: skip
        models_dir = self._paths.models_dir
        path = entry.path_in(models_dir)
        size = path.stat().st_size if path.is_file() else None
        return TierModel(
            tier=tier,
            model_id=entry.id,
            name=entry.name,
            path=path,
            size=size,
            state=_state(entry, path, models_dir, hashed=hashed),
            custom=entry.source.kind == "user_file",
            installable=self.setup.can_fetch
            and entry.source.kind in ("package_file", "package_chunks"),
        )

    def _entries(self) -> list[tuple[str, ModelEntry]]:
        manifest = load_manifest(self._manifest_file, self._paths.user_manifest_file)
        return [(t, manifest.for_tier(t)) for t in TIERS if t in manifest.tiers]

    def rows(self) -> list[TierModel]:
        """Each tier's file, size and state, from the cache only (no file is hashed)."""
        models_dir = self._paths.models_dir
        return [
            self._row(tier, entry, cached_sha256(entry.path_in(models_dir), models_dir))
            for tier, entry in self._entries()
        ]

    def verify(self, tier: str) -> TierModel:
        """Hash the tier's file (seconds for a large one: not on a GUI thread); the hash is
        remembered in the cache, so ``rows()`` says it from now on."""
        for name, entry in self._entries():
            if name == tier and entry.source.kind == "endpoint":
                return replace(self._row(tier, entry, None), state=endpoint_health(entry))
            if name == tier:
                result = verify(entry, self._paths.models_dir)
                return self._row(tier, entry, result.sha256)
        raise KeyError(tier)

    @staticmethod
    def check(path: Path) -> None:
        """Refuse a missing or non-GGUF file (a RilaiError that says why)."""
        check_file(path, hint="Choose a .gguf model file")

    def use_endpoint(self, tier: str, url: str, model: str) -> TierModel:
        """Point ``tier`` at an OpenAI-compatible server (docs/api.md); applies at the next
        start. A ManifestError says what is wrong with the URL."""
        if tier not in TIERS:
            raise KeyError(tier)
        entry = endpoint_entry(f"remote-{tier}", url, model)
        update_overlay(self._paths.user_manifest_file, add=entry, tiers={tier: entry.id})
        return self._row(tier, entry, None)

    def use_file(self, tier: str, path: Path) -> TierModel:
        """Point ``tier`` at the GGUF file ``path`` (the model overlay); applies at the next
        start, when the models are loaded again."""
        if tier not in TIERS:
            raise KeyError(tier)
        path = path.expanduser().resolve()
        self.check(path)
        stem = re.sub(r"[^a-z0-9._-]+", "-", path.stem.lower()).strip("-") or "model"
        entry = ModelEntry(
            id=f"custom-{tier}-{stem}",
            name=path.name,
            file=path.name,
            sha256=None,
            size=path.stat().st_size,
            licence="user-supplied",
            context_length=None,
            source=ModelSource("user_file", path=str(path)),
        )
        update_overlay(self._paths.user_manifest_file, add=entry, tiers={tier: entry.id})
        return next(r for r in self.rows() if r.tier == tier)

    def install(
        self,
        tiers: Sequence[str],
        progress: TierProgress | None = None,
        cancel: threading.Event | None = None,
    ) -> list[Path]:
        """The first-run install (``ModelsSetup.install``) for any tier: assembled from its
        registry packages, sha256-verified, stopped by ``cancel``; seconds to minutes, so
        never on a GUI thread."""
        return self.setup.install(tiers, progress, cancel)

    def removal(self, tier: str) -> Removal:
        """What removing ``tier``'s file frees, or an InstallError saying why it is refused
        (reads a stat and the installer's cache: no file is hashed)."""
        entries = self._entries()
        entry = next((e for name, e in entries if name == tier), None)
        if entry is None:
            raise InstallError(f"No model is assigned to the {tier} tier")
        path = entry.path_in(self._paths.models_dir)
        self._refuse_unless_installed(tier, entry, path)
        tiers = tuple(name for name, e in entries if e.path_in(self._paths.models_dir) == path)
        return Removal(tiers, entry.id, entry.name, path, path.stat().st_size)

    def _refuse_unless_installed(self, tier: str, entry: ModelEntry, path: Path) -> None:
        models_dir = self._paths.models_dir
        what = f"the {tier} tier's model"
        if entry.source.kind == "endpoint":
            raise InstallError(f"{what} runs on another machine; there is no file to remove")
        if entry.source.kind not in INSTALLED_KINDS:
            raise InstallError(
                f"{what} is your own file ({path}); Rilai never deletes it",
                recovery_suggestions=["Choose another file for the tier, or delete it yourself"],
            )
        if self._bundled:
            raise InstallError(
                f"{what} came with the installed Rilai (it is part of the program, read-only)",
                recovery_suggestions=["Uninstalling Rilai removes it"],
            )
        if path.is_symlink() or path.resolve().parent != models_dir.resolve():
            raise InstallError(f"{path} is not a file in the models folder ({models_dir})")
        if not path.is_file():
            raise InstallError(f"{what} is not installed ({path.name} is not in {models_dir})")
        if entry.sha256 is None or cached_sha256(path, models_dir) != entry.sha256:
            raise InstallError(
                f"Rilai has no record of installing {path.name}: the installer's record has "
                "no matching sha256 for it, so it is left alone",
                recovery_suggestions=[
                    "Press Verify files: the manifest's own file can then be removed",
                    f"Any other file is yours to delete: {path}",
                ],
            )

    def remove(self, tier: str) -> list[TierModel]:
        """Delete ``tier``'s file (checked again, where no turn runs), refused while the
        engine has it loaded; returns the rows as they are now (its tiers: missing)."""

        def run() -> None:
            removal = self.removal(tier)
            if str(removal.path.resolve()) in set(self._loaded()):
                raise InstallError(
                    f"{removal.name} is loaded by the running Rilai, which cannot unload a "
                    "model; it was not removed",
                    recovery_suggestions=[
                        f"Quit Rilai, then run: rilai models remove {removal.model_id}",
                        "Or choose another model for its tiers, restart, and remove it then",
                    ],
                )
            removal.path.unlink()
            forget(removal.path, self._paths.models_dir)

        self._exclusive(run)
        return self.rows()
