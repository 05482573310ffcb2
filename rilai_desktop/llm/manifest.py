"""The tier → model manifest: ``models/models.toml`` with the user's overlay on top.

The shipped manifest is never edited by the app; ``rilai models use/add/remove`` write the
overlay (``<config dir>/models.toml``), whose ``[tiers]`` and ``[models.*]`` entries win.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import tomli_w

from rilai_desktop.config import read_toml
from rilai_desktop.llm.errors import ManifestError
from rilai_desktop.paths import private_opener

TIERS: tuple[str, ...] = ("small", "medium", "large")
FALLBACK_ORDER: dict[str, tuple[str, ...]] = {
    "large": ("large", "medium", "small"),
    "medium": ("medium", "small"),
    "small": ("small",),
}
# "endpoint": a tier on another machine's OpenAI-compatible server (llm/remote.py)
SourceKind = Literal["package_file", "package_chunks", "user_file", "url", "endpoint"]
_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ModelSource:
    kind: SourceKind
    packages: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()  # "module/relative/path" inside installed packages
    path: str | None = None  # user_file: absolute path of the user's GGUF
    url: str | None = None  # url: where the GGUF came from; endpoint: the server's /v1 URL
    model: str | None = None  # endpoint: the model name the server knows
    api_key_file: str | None = None  # endpoint: a file holding its API key (never the key)


@dataclass(frozen=True)
class ModelEntry:
    id: str
    name: str
    file: str
    sha256: str | None
    size: int | None
    licence: str
    context_length: int | None
    source: ModelSource

    def path_in(self, models_dir: Path) -> Path:
        if self.source.kind == "user_file" and self.source.path:
            return Path(self.source.path)
        return models_dir / self.file

    def to_toml(self) -> dict[str, Any]:
        src: dict[str, Any] = {"kind": self.source.kind}
        if self.source.packages:
            src["packages"] = list(self.source.packages)
        if self.source.parts:
            src["parts"] = list(self.source.parts)
        if self.source.path:
            src["path"] = self.source.path
        if self.source.url:
            src["url"] = self.source.url
        if self.source.model:
            src["model"] = self.source.model
        if self.source.api_key_file:
            src["api_key_file"] = self.source.api_key_file
        out: dict[str, Any] = {"name": self.name, "file": self.file, "licence": self.licence}
        if self.sha256:
            out["sha256"] = self.sha256
        if self.size is not None:
            out["size"] = self.size
        if self.context_length is not None:
            out["context_length"] = self.context_length
        out["source"] = src
        return out


@dataclass
class Manifest:
    tiers: dict[str, str]
    models: dict[str, ModelEntry]
    user_models: set[str] = field(default_factory=set)
    base_tiers: dict[str, str] = field(default_factory=dict)  # the shipped file's, unchanged

    def for_tier(self, tier: str) -> ModelEntry:
        if tier not in TIERS:
            raise ManifestError(f"Unknown tier {tier!r}; tiers are {', '.join(TIERS)}")
        model_id = self.tiers.get(tier)
        if model_id is None:
            raise ManifestError(
                f"No model is assigned to the {tier} tier",
                recovery_suggestions=[f"rilai models use {tier} MODEL_ID"],
            )
        return self.get(model_id)

    def get(self, model_id: str) -> ModelEntry:
        try:
            return self.models[model_id]
        except KeyError:
            raise ManifestError(
                f"Unknown model {model_id!r}",
                recovery_suggestions=[
                    "Known models: " + ", ".join(sorted(self.models)),
                    "Register your own GGUF with `rilai models add PATH`",
                ],
            ) from None


def _read(path: Path) -> dict[str, Any]:
    return read_toml(path, ManifestError)


def _table(data: Mapping[str, Any], key: str, origin: Path) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ManifestError(
            f"[{key}] in {origin} must be a table, not {type(value).__name__}",
            context={"path": str(origin)},
        )
    return value


def _entry(model_id: str, raw: Mapping[str, Any], origin: Path) -> ModelEntry:
    try:
        src = raw["source"]
        if src["kind"] not in get_args(SourceKind):
            raise ValueError(
                f"source kind {src['kind']!r} is not one of {', '.join(get_args(SourceKind))}"
            )
        sha = raw.get("sha256")
        if sha is not None and not _SHA.match(str(sha)):
            raise ValueError(f"sha256 {sha!r} is not 64 lowercase hex digits")
        return ModelEntry(
            id=model_id,
            name=str(raw.get("name", model_id)),
            file=str(raw["file"]),
            sha256=None if sha is None else str(sha),
            size=None if raw.get("size") is None else int(raw["size"]),
            licence=str(raw.get("licence", "unknown")),
            context_length=None
            if raw.get("context_length") is None
            else int(raw["context_length"]),
            source=ModelSource(
                kind=src["kind"],
                packages=tuple(src.get("packages", ())),
                parts=tuple(src.get("parts", ())),
                path=src.get("path"),
                url=src.get("url"),
                model=src.get("model"),
                api_key_file=src.get("api_key_file"),
            ),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ManifestError(
            f"Model {model_id!r} in {origin} is malformed: {exc}", context={"path": str(origin)}
        ) from exc


def load_manifest(base: Path, overlay: Path | None = None) -> Manifest:
    base_raw = _read(base)
    if not base_raw:
        raise ManifestError(f"No model manifest at {base}", context={"path": str(base)})
    tiers = {str(k): str(v) for k, v in _table(base_raw, "tiers", base).items()}
    origin = dict.fromkeys(tiers, base)  # which file each tier assignment came from
    models = {mid: _entry(mid, raw, base) for mid, raw in _table(base_raw, "models", base).items()}
    user: set[str] = set()
    if overlay is not None:
        over = _read(overlay)
        for mid, raw in _table(over, "models", overlay).items():
            models[mid] = _entry(mid, raw, overlay)
            user.add(mid)
        over_tiers = {str(k): str(v) for k, v in _table(over, "tiers", overlay).items()}
        tiers.update(over_tiers)
        origin.update(dict.fromkeys(over_tiers, overlay))
    for tier, mid in tiers.items():
        where = origin[tier]
        if tier not in TIERS:
            raise ManifestError(
                f"Unknown tier {tier!r} in {where}; tiers are {', '.join(TIERS)}",
                context={"path": str(where)},
                recovery_suggestions=[f"Fix or delete the [tiers] line in {where}"],
            )
        if mid not in models:
            raise ManifestError(
                f"Tier {tier} in {where} names unknown model {mid!r}",
                context={"path": str(where)},
                recovery_suggestions=[
                    "Known models: " + ", ".join(sorted(models)),
                    f"Fix or delete the [tiers] line in {where}",
                ],
            )
    base_tiers = {str(k): str(v) for k, v in _table(base_raw, "tiers", base).items()}
    return Manifest(tiers=tiers, models=models, user_models=user, base_tiers=base_tiers)


def update_overlay(
    overlay: Path,
    *,
    tiers: Mapping[str, str] | None = None,
    add: ModelEntry | None = None,
    remove: str | None = None,
) -> None:
    """Change the user's overlay atomically (tier assignments, added or removed models)."""
    data = _read(overlay)
    data["tiers"] = {**_table(data, "tiers", overlay), **dict(tiers or {})}
    models = data["models"] = _table(data, "models", overlay)
    if add is not None:
        models[add.id] = add.to_toml()
    if remove is not None:
        models.pop(remove, None)
        data["tiers"] = {t: m for t, m in data["tiers"].items() if m != remove}
    overlay.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = overlay.with_name(f".{overlay.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb", opener=private_opener) as fh:
            tomli_w.dump(data, fh)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(overlay)
    finally:
        tmp.unlink(missing_ok=True)  # only left when writing failed; the overlay is untouched


def endpoint_entry(
    model_id: str, url: str, model: str, api_key_file: str | None = None
) -> ModelEntry:
    """A tier on another machine (docs/api.md): a checked http(s) URL and key file; the
    key file's path is stored, never the key. A ManifestError says what is wrong."""
    from urllib.parse import urlparse

    url = url.strip().rstrip("/")
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ManifestError(
            f"{url!r} is not an http(s) URL",
            recovery_suggestions=["e.g. http://192.168.1.20:8080/v1"],
        )
    key = None
    if api_key_file:
        key_path = Path(api_key_file).expanduser()
        if not key_path.is_file():
            raise ManifestError(
                f"No key file at {api_key_file}", recovery_suggestions=["Check the path"]
            )
        key = str(key_path.resolve())
    return ModelEntry(
        id=model_id,
        name=model_id,
        file="",
        sha256=None,
        size=None,
        licence="remote",
        context_length=None,
        source=ModelSource("endpoint", url=url, model=model.strip() or model_id, api_key_file=key),
    )
