"""Typed settings with one precedence order:
defaults < ``settings.toml`` in the config dir < ``RILAI_*`` environment < CLI flags.

Environment keys are the dotted setting names upper-cased with ``__`` for the dot:
``RILAI_LLM__THREADS=1`` sets ``llm.threads``. ``RILAI_HOME`` and ``RILAI_DEBUG`` are
not settings (they are read by paths.py and the CLI).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rilai_desktop.errors import ConfigError, RilaiError
from rilai_desktop.paths import make_private_dirs, private_opener

NOT_SETTINGS = frozenset({"RILAI_HOME", "RILAI_DEBUG", "RILAI_MODELS_DIR"})


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class LLMSettings(_Section):
    threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="llama.cpp threads; 1 wins on 2 cores when the other core is busy",
    )
    voice_threads: int = Field(
        default=2,
        ge=1,
        le=64,
        description="decode threads of the voice's own context: it speaks alone (the agents"
        " are done), so both cores (measured on the 1.5B: 7.9 tok/s on 2 threads, 4.7 on 1)",
    )
    batch_threads: int = Field(
        default=2,
        ge=1,
        le=64,
        description="threads for prompt processing (not for the parallel agent contexts)",
    )
    agent_workers: int = Field(
        default=2,
        ge=1,
        le=8,
        description="agent calls run at once, each on its own llama.cpp context (one per core)",
    )
    n_ctx: int = Field(default=4096, ge=256, le=131072, description="context length")
    gpu_layers: int = Field(default=0, ge=0, description="layers offloaded to a GPU (0: CPU)")
    chat_template_fallback: Literal["chatml", "error"] = Field(
        default="chatml", description="what to do when a GGUF has no chat template"
    )
    fallback: bool = Field(
        default=True,
        description="when a tier's file is missing or broken, use the next smaller tier",
    )


Tier = Literal["small", "medium", "large"]


class RoleSettings(_Section):
    """Which tier each role uses. Agents are many short JSON calls: the small tier keeps a
    turn fast. The voice is what the person reads: the large tier (measured against the
    medium as the voice, docs/voice.md: the 0.5B answered memory questions with "I don't
    have that information" and read its notes aloud; the 1.5B did not). The council's
    open cases (a two-field enum choice): medium. Escalation on high dispute: large."""

    agents: Tier = "small"
    council: Tier = "medium"
    voice: Tier = "large"
    escalation: Tier = "large"
    extraction: Tier = "medium"
    consolidation: Tier = "medium"
    safety_check: Tier = "medium"  # the grey-band yes/no question (docs/safety.md)
    reader: Tier = "large"  # grounded readings for the voice (docs/agents.md, "The reader")


class EmbeddingSettings(_Section):
    torch_threads: int = Field(
        default=1, ge=1, le=64, description="the embedder's threads (torch or onnxruntime)"
    )
    backend: Literal["minilm", "onnx", "hash"] = Field(
        default="onnx",
        description="onnx: all-MiniLM-L6-v2 on onnxruntime, no torch (exported at set-up by "
        "tools/export_embedding_onnx.py; what the installers carry); minilm: the same model "
        "and vectors on torch (a source checkout); hash: a model-free hashed bag of words "
        "(tests; much weaker recall)",
    )


class SafetySettings(_Section):
    model_check: bool = Field(
        default=False,
        description="ask a local model about grey-band safety readings: off, measured not to"
        " remove false positives at the same recall (docs/safety.md)",
    )


class MemorySettings(_Section):
    exact_index_max: int = Field(
        default=250_000,
        ge=1,
        description="items up to which the FAISS index is exact (flat); an IVF index beyond",
    )
    extract: Literal["rules", "llm", "both"] = Field(
        default="both", description="how turns become memory items"
    )
    consolidation_interval: int = Field(
        default=10, ge=1, le=10_000, description="consolidate a category after N new items"
    )
    dedupe_similarity: float = Field(
        default=0.92, ge=0.5, le=1.0, description="cosine over which a new item reinforces"
    )
    llm_candidates: int = Field(
        default=20, ge=1, le=50, description="candidates the model re-ranks (LLM retrieval)"
    )
    journal_retention_days: int = Field(
        default=30, ge=1, le=3650, description="days to keep daily journal files"
    )
    paused: bool = Field(
        default=False, description="memory paused: turns neither recall nor commit memory"
    )


class DaemonSettings(_Section):
    tick_seconds: int = Field(default=60, ge=1, le=86400, description="daemon tick interval")
    modulator_half_life_minutes: float = Field(
        default=90.0, gt=0, le=100_000, description="modulators halve their distance to baseline"
    )
    stance_half_life_minutes: float = Field(
        default=240.0, gt=0, le=100_000, description="the stance halves its distance to baseline"
    )
    maintenance_hours: float = Field(
        default=6.0, gt=0, le=720, description="hours between maintenance runs"
    )
    backups_keep: int = Field(default=5, ge=1, le=100, description="rotating database backups")
    resource_retention_days: int = Field(
        default=90, ge=1, le=36500, description="days raw conversation resources are kept"
    )


_HHMM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


class NudgeSettings(_Section):
    enabled: bool = Field(default=True, description="proactive check-ins on or off")
    per_hour: int = Field(default=3, ge=0, le=60, description="nudge budget per hour (cost units)")
    per_day: int = Field(default=12, ge=0, le=500, description="nudge budget per day (cost units)")
    quiet_start: str = Field(default="22:00", pattern=_HHMM, description="quiet hours begin")
    quiet_end: str = Field(default="08:00", pattern=_HHMM, description="quiet hours end")
    cooldown_hours: float = Field(
        default=6.0, ge=0, le=720, description="hours before the same condition may nudge again"
    )


class AgentSettings(_Section):
    """The inner council's agents (docs/agents.md)."""

    enabled: bool = Field(
        default=True,
        description="run the agents (off: the council decides from the sensors alone)",
    )
    readings: bool = Field(
        default=False,
        description="the reader: grounded facts of what they said, in the voice's notes (off:"
        " blind judges preferred the replies without it, docs/agents.md)",
    )


class ApiSettings(_Section):
    """The local API (docs/api.md): off unless the person turns it on."""

    enabled: bool = Field(
        default=False, description="serve the local API while the window runs (127.0.0.1)"
    )
    port: int = Field(default=8765, ge=1024, le=65535, description="the local API's port")


class UISettings(_Section):
    theme: Literal["system", "light", "dark"] = "system"
    close_to_tray: bool = Field(
        default=True,
        description="closing the window leaves Rilai in the tray (only where a tray exists)",
    )
    quiet_mode: bool = Field(
        default=False,
        description="no desktop notifications: check-ins go to the window's list and inline",
    )


class Settings(_Section):
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    llm: LLMSettings = Field(default_factory=LLMSettings)
    roles: RoleSettings = Field(default_factory=RoleSettings)
    agents: AgentSettings = Field(default_factory=AgentSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    safety: SafetySettings = Field(default_factory=SafetySettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    daemon: DaemonSettings = Field(default_factory=DaemonSettings)
    nudges: NudgeSettings = Field(default_factory=NudgeSettings)
    ui: UISettings = Field(default_factory=UISettings)
    api: ApiSettings = Field(default_factory=ApiSettings)


def setting_keys(model: type[BaseModel] = Settings, prefix: str = "") -> list[str]:
    """Every dotted setting name, e.g. ``llm.threads``."""
    keys: list[str] = []
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            keys.extend(setting_keys(ann, f"{prefix}{name}."))
        else:
            keys.append(f"{prefix}{name}")
    return keys


def _set_dotted(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{part!r} in {key!r} is not a section")
        node = child
    node[parts[-1]] = value


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def read_toml(path: Path, error: type[RilaiError] = ConfigError) -> dict[str, Any]:
    """Read a TOML file ({} when absent); a bad or unreadable file raises ``error``
    naming the file. Shared by settings.toml and the model manifests."""
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path} is not valid TOML: {exc}", context={"path": str(path)}) from exc
    except OSError as exc:
        raise error(
            f"Cannot read {path}: {exc.strerror or exc}", context={"path": str(path)}
        ) from exc


def read_settings_file(path: Path) -> dict[str, Any]:
    return read_toml(path, ConfigError)


def env_overrides(env: Mapping[str, str]) -> dict[str, str]:
    known = set(setting_keys())
    found: dict[str, str] = {}
    for name, value in env.items():
        if not name.startswith("RILAI_") or name in NOT_SETTINGS:
            continue
        key = name[len("RILAI_") :].lower().replace("__", ".")
        if key in known:
            found[key] = value
        elif "__" in name:
            raise ConfigError(
                f"Environment variable {name} does not name a setting",
                context={"variable": name},
                recovery_suggestions=[
                    "Known settings: " + ", ".join(sorted(known)),
                    f"Unset it: unset {name}",
                ],
            )
    return found


class LoadedSettings(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)
    settings: Settings
    sources: dict[str, str]  # dotted key -> "default" | "file" | "env" | "cli"


def load_settings(
    settings_file: Path,
    env: Mapping[str, str] | None = None,
    cli: Mapping[str, Any] | None = None,
) -> LoadedSettings:
    env = os.environ if env is None else env
    known = set(setting_keys())
    sources = dict.fromkeys(known, "default")
    tree: dict[str, Any] = {}
    layers: list[tuple[str, Mapping[str, Any]]] = [
        ("file", flatten(read_settings_file(settings_file))),
        ("env", env_overrides(env)),
        ("cli", dict(cli or {})),
    ]
    for source, values in layers:
        for key, value in values.items():
            if key not in known:
                raise ConfigError(
                    f"Unknown setting {key!r} (from {source})",
                    context={"key": key, "source": source},
                    recovery_suggestions=["Known settings: " + ", ".join(sorted(known))],
                )
            _set_dotted(tree, key, value)
            sources[key] = source
    try:
        settings = Settings.model_validate(tree)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        raise ConfigError(
            f"Invalid value for {key} (from {sources.get(key, '?')}): {err['msg']}",
            context={"key": key, "input": err.get("input")},
        ) from None
    return LoadedSettings(settings=settings, sources=sources)


def set_in_file(settings_file: Path, key: str, raw_value: str) -> Any:
    """Validate ``key = raw_value`` and persist it to settings.toml atomically."""
    if key not in set(setting_keys()):
        raise ConfigError(
            f"Unknown setting {key!r}",
            recovery_suggestions=["Known settings: " + ", ".join(sorted(setting_keys()))],
        )
    tree = read_settings_file(settings_file)
    flat = flatten(tree)
    flat[key] = raw_value
    candidate: dict[str, Any] = {}
    for k, v in flat.items():
        _set_dotted(candidate, k, v)
    try:
        validated = Settings.model_validate(candidate)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"Invalid value for {key}: {err['msg']}", context={"key": key}) from None
    value = validated
    for part in key.split("."):
        value = getattr(value, part)
    _set_dotted(tree, key, value)
    make_private_dirs(settings_file.parent)
    tmp = settings_file.with_suffix(".toml.tmp")
    with open(tmp, "wb", opener=private_opener) as fh:  # 0600 whatever the umask
        tomli_w.dump(tree, fh)
    tmp.replace(settings_file)
    return value
