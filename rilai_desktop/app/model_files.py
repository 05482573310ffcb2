"""The GGUF file each tier uses, for a client to show and change (the settings dialog).

The tiers are configured where `rilai models use/add` configure them: the shipped manifest
(``models/models.toml``) under the user's overlay (``<config dir>/models.toml``). Choosing
a file for a tier writes a ``user_file`` model to that overlay and points the tier at it —
the same store the router reads at start, never a second one. The file is refused unless it
exists and starts with the GGUF magic bytes.

``rows()`` is cheap (a stat per file and the installer's ``.verified.json`` cache): a file
whose hash is not in the cache says "not verified" until ``verify(tier)`` hashes it, which
reads the whole file and belongs on a background thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from rilai_desktop.llm.gguf import check_file
from rilai_desktop.llm.installer import cached_sha256, verify
from rilai_desktop.llm.manifest import (
    TIERS,
    ModelEntry,
    ModelSource,
    endpoint_entry,
    load_manifest,
    update_overlay,
)
from rilai_desktop.paths import Paths

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


class ModelFiles:
    """Rows for the tiers, a file chosen for a tier, a tier's file verified."""

    def __init__(self, paths: Paths) -> None:
        self._paths = paths

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
        )

    def _entries(self) -> list[tuple[str, ModelEntry]]:
        manifest = load_manifest(self._paths.manifest_file, self._paths.user_manifest_file)
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
