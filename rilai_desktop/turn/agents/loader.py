"""Loads the 44 agent manifests and prompts from ``prompts/agents/<agency>/<agent>.yaml|.md``.

Why a strict loader: a manifest is text a person edits, and a typo there (an unknown
sensor name, a weight of 5, a missing prompt) would otherwise surface as an agent that
silently never runs. Every problem raises :class:`AgentManifestError` naming the file and
the fix, at start-up, before any turn runs. That includes an input no turn provides: a
manifest may declare only :data:`~rilai_desktop.turn.agents.context.AGENT_INPUTS`, each of
which reaches the agents that declare it.

Files in ``prompts/agents/`` whose name starts with ``_`` (e.g. ``_system.md``, the shared
system message) are not agents and are skipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Final

import yaml  # type: ignore[import-untyped]
from pydantic import ValidationError

from rilai_desktop.contracts import MODULATOR_NAMES, SENSOR_NAMES, AgentManifest
from rilai_desktop.contracts.agent import KNOWLEDGE_BASES, AgentPriority, ClaimType
from rilai_desktop.contracts.workspace import STANCE_DIMENSIONS
from rilai_desktop.turn.agents.agencies import ALL_AGENT_IDS, ALWAYS_ON
from rilai_desktop.turn.agents.context import AGENT_INPUTS
from rilai_desktop.turn.agents.registry import AgentSpec, Label, Triggers
from rilai_desktop.turn.prompts import Prompts, manifest_error

ALLOWED_OUTPUTS: Final[frozenset[str]] = frozenset({"claims", "stance_delta", "memory_candidates"})
TRIGGER_KEYS: Final[frozenset[str]] = frozenset({"sensors", "modulators", "keywords"})
MAX_KEYWORD_CHARS: Final[int] = 60
MIN_LABELS, MAX_LABELS = 2, 8  # a choice, and few enough for a 135M model to read
MAX_LABEL_CHARS: Final[int] = 24
MAX_CLAIM_CHARS: Final[int] = 100
LABEL_KEYS: Final[frozenset[str]] = frozenset({"claim", "type", "urgency", "stance", "gate"})
_LABEL_NAME = re.compile(r"^[a-z][a-z0-9 _'-]*$")
_ORDER: Final[dict[str, int]] = {agent_id: i for i, agent_id in enumerate(ALL_AGENT_IDS)}


class AgentRegistry:
    """The loaded agents, in the stable order of ``agencies.ALL_AGENT_IDS``.

    The constructor accepts any set of specs (tests build small registries);
    :func:`load_registry` is what insists on exactly the 44 agents.
    """

    def __init__(self, specs: Iterable[AgentSpec]) -> None:
        ordered = sorted(specs, key=lambda s: (_ORDER.get(s.id, len(_ORDER)), s.id))
        self._by_id: dict[str, AgentSpec] = {}
        for spec in ordered:
            if spec.id in self._by_id:
                raise ValueError(f"duplicate agent id {spec.id!r}")
            self._by_id[spec.id] = spec

    def get(self, agent_id: str) -> AgentSpec:
        try:
            return self._by_id[agent_id]
        except KeyError:
            raise KeyError(f"no agent {agent_id!r} in the registry") from None

    def all(self) -> list[AgentSpec]:
        return list(self._by_id.values())

    def always_on(self) -> list[AgentSpec]:
        return [spec for spec in self._by_id.values() if spec.always_on]

    def knowledge_bases(self) -> tuple[str, ...]:
        """The knowledge bases any manifest asks recall to search, in seed 004's order."""
        asked = {kb for spec in self._by_id.values() for kb in spec.manifest.knowledge_bases}
        return tuple(kb for kb in KNOWLEDGE_BASES if kb in asked)

    def ids(self) -> list[str]:
        return list(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._by_id

    def __iter__(self) -> Iterator[AgentSpec]:
        return iter(self.all())


def load_registry(prompts: Prompts) -> AgentRegistry:
    """Load and validate every agent under ``prompts/agents``."""
    agents_dir = prompts.path("agents")
    if not agents_dir.is_dir():
        raise manifest_error(agents_dir, "the agents folder is missing", f"Create {agents_dir}")
    found = _discover(agents_dir)
    _check_agent_set(agents_dir, found)
    return AgentRegistry(load_spec(prompts, found[agent_id]) for agent_id in ALL_AGENT_IDS)


def load_spec(prompts: Prompts, yaml_path: Path) -> AgentSpec:
    """One agent: its manifest, triggers and prompt (``<agency>/<agent>.yaml`` + ``.md``)."""
    agency, name = yaml_path.parent.name, yaml_path.stem
    data = yaml_mapping(prompts, yaml_path)
    triggers = parse_triggers(yaml_path, data.pop("triggers", None))
    labels = parse_labels(yaml_path, data.pop("labels", None))
    try:
        manifest = AgentManifest.model_validate(data)
    except ValidationError as exc:
        raise manifest_error(yaml_path, f"invalid manifest: {_summary(exc)}") from None
    expected_id = f"{agency}.{name}"
    if manifest.id != expected_id:
        raise manifest_error(yaml_path, f"id is {manifest.id!r}", f"Set `id: {expected_id}`")
    if manifest.prompt_template != f"{name}.md":
        raise manifest_error(
            yaml_path,
            f"prompt_template is {manifest.prompt_template!r}",
            f"Set `prompt_template: {name}.md`",
        )
    _check_fields(yaml_path, manifest)
    prompt = prompts.read(yaml_path.parent / manifest.prompt_template).strip()
    if not prompt:
        raise manifest_error(yaml_path.parent / manifest.prompt_template, "the prompt is empty")
    return AgentSpec(manifest=manifest, prompt=prompt, triggers=triggers, labels=labels)


def _discover(agents_dir: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    try:
        agency_dirs = sorted(p for p in agents_dir.iterdir() if not p.name.startswith(("_", ".")))
    except OSError as exc:
        raise manifest_error(agents_dir, f"cannot list the folder: {exc.strerror or exc}") from None
    for agency_dir in agency_dirs:
        if not agency_dir.is_dir():
            continue
        for path in sorted(agency_dir.iterdir()):
            if path.suffix == ".yml":
                raise manifest_error(path, "wrong extension", f"Rename it to {path.stem}.yaml")
            if path.suffix == ".yaml" and not path.name.startswith(("_", ".")):
                found[f"{agency_dir.name}.{path.stem}"] = path
    return found


def _check_agent_set(agents_dir: Path, found: Mapping[str, Path]) -> None:
    missing = [a for a in ALL_AGENT_IDS if a not in found]
    extra = sorted(set(found) - set(ALL_AGENT_IDS))
    if missing:
        first = missing[0].replace(".", "/", 1)
        raise manifest_error(
            agents_dir,
            f"{len(missing)} agent manifest(s) missing: {', '.join(missing[:5])}",
            f"Create {agents_dir / first}.yaml and .md (or restore them)",
        )
    if extra:
        raise manifest_error(
            found[extra[0]],
            f"agent(s) not in agencies.py: {', '.join(extra[:5])}",
            "Remove the file, or add the agent to rilai_desktop/turn/agents/agencies.py",
        )


def _check_fields(path: Path, manifest: AgentManifest) -> None:
    bad_outputs = sorted(set(manifest.outputs) - ALLOWED_OUTPUTS)
    if bad_outputs or "claims" not in manifest.outputs:
        raise manifest_error(
            path, f"outputs {manifest.outputs} must include claims", _allowed_hint()
        )
    bad_inputs = sorted(set(manifest.inputs) - AGENT_INPUTS)
    if bad_inputs or not manifest.inputs:
        raise manifest_error(
            path,
            f"unknown or no inputs (no turn provides them): {bad_inputs or '[]'}",
            "Inputs a turn provides: " + ", ".join(sorted(AGENT_INPUTS)),
        )
    if bool(manifest.knowledge_bases) != ("knowledge" in manifest.inputs):
        raise manifest_error(
            path,
            "`knowledge` in inputs and `knowledge_bases:` go together",
            "Declare both (e.g. `knowledge_bases: [kb_core]` and input knowledge) or neither",
        )
    if manifest.cost_estimate <= 0 or manifest.cooldown < 0:
        raise manifest_error(path, "cost_estimate must be > 0 and cooldown >= 0")
    always_on = manifest.id in ALWAYS_ON
    if always_on != (manifest.priority is AgentPriority.ALWAYS_ON):
        want = "always_on" if always_on else "monitor or normal"
        raise manifest_error(
            path, f"priority is {manifest.priority.value}", f"Set `priority: {want}`"
        )


def _allowed_hint() -> str:
    return f"Allowed outputs: {', '.join(sorted(ALLOWED_OUTPUTS))} (claims is required)"


def parse_triggers(path: Path, raw: object) -> Triggers:
    """Validate a ``triggers:`` block (absent means: nothing wakes the agent but chat/boost)."""
    if raw is None:
        return Triggers()
    if not isinstance(raw, dict):
        raise manifest_error(
            path, "triggers must be a mapping", "Use sensors:, modulators:, keywords:"
        )
    unknown = sorted(str(k) for k in raw if k not in TRIGGER_KEYS)
    if unknown:
        raise manifest_error(
            path, f"unknown triggers key(s): {unknown}", "Allowed: " + ", ".join(TRIGGER_KEYS)
        )
    sensors = _weights(path, "sensors", raw.get("sensors"), SENSOR_NAMES)
    modulators = _weights(path, "modulators", raw.get("modulators"), MODULATOR_NAMES)
    return Triggers(sensors=sensors, modulators=modulators, keywords=_keywords(path, raw))


def parse_labels(path: Path, raw: object) -> tuple[Label, ...]:
    """Validate a ``labels:`` block: label name → claim text, or → {claim, type, urgency,
    stance, gate}. Every agent answers with one of its labels (docs/agents.md, "Output")."""
    if not isinstance(raw, dict) or not MIN_LABELS <= len(raw) <= MAX_LABELS:
        raise manifest_error(
            path, "labels must be a mapping of 2-8 label: claim entries", _LABEL_HINT
        )
    return tuple(_label(path, str(name), entry) for name, entry in raw.items())


_LABEL_HINT: Final[str] = 'Write `labels:` with 2-8 entries `name: "claim text"` (docs/agents.md)'


def _label(path: Path, name: str, entry: object) -> Label:
    if not _LABEL_NAME.match(name) or len(name) > MAX_LABEL_CHARS:
        raise manifest_error(path, f"bad label name {name!r}", "Use a short lower-case word")
    fields: dict[str, object] = {"claim": entry} if isinstance(entry, str) else {}
    if isinstance(entry, dict):
        fields = {str(k): v for k, v in entry.items()}
    claim = " ".join(str(fields.get("claim", "")).split())
    if set(fields) - LABEL_KEYS or not claim or len(claim) > MAX_CLAIM_CHARS:
        raise manifest_error(path, f"label {name!r}: bad entry {entry!r}", _LABEL_HINT)
    kind = str(fields.get("type", "observation"))
    if kind not in {t.value for t in ClaimType}:
        raise manifest_error(path, f"label {name!r}: unknown type {kind!r}", _LABEL_HINT)
    urgency = fields.get("urgency", 1)
    if not isinstance(urgency, int) or isinstance(urgency, bool) or not 0 <= urgency <= 3:
        raise manifest_error(path, f"label {name!r}: urgency {urgency!r}", "Use 0, 1, 2 or 3")
    stance = _numbers(fields.get("stance"), STANCE_DIMENSIONS, -0.15, 0.15)
    if stance is None:
        raise manifest_error(path, f"label {name!r}: bad stance", "stance dimension: ±0.15 at most")
    gate = _numbers(fields.get("gate"), SENSOR_NAMES, 0.0, 1.0)
    if gate is None:
        raise manifest_error(path, f"label {name!r}: bad gate", "sensor name: a floor in [0, 1]")
    return Label(name, claim, kind, urgency, stance, gate)


def _numbers(
    raw: object, names: tuple[str, ...], low: float, high: float
) -> dict[str, float] | None:
    """``{name: number}`` with known names and values in [low, high]; None if not."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        return None
    out: dict[str, float] = {}
    for key, value in raw.items():
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if key not in names or not ok or not low <= value <= high:
            return None
        out[str(key)] = float(value)
    return out


def _weights(path: Path, key: str, raw: object, names: tuple[str, ...]) -> dict[str, float]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise manifest_error(path, f"triggers.{key} must be a mapping of name: weight")
    out: dict[str, float] = {}
    for name, weight in raw.items():
        if name not in names:
            raise manifest_error(path, f"unknown {key} name {name!r}", "Known: " + ", ".join(names))
        ok = isinstance(weight, int | float) and not isinstance(weight, bool)
        if not ok or not math.isfinite(weight) or not 0.0 <= weight <= 1.0:
            raise manifest_error(
                path, f"triggers.{key}.{name} = {weight!r}", "Use a weight in [0, 1]"
            )
        out[str(name)] = float(weight)
    return out


def _keywords(path: Path, raw: Mapping[object, object]) -> tuple[str, ...]:
    words = raw.get("keywords")
    if words is None:
        return ()
    if not isinstance(words, list):
        raise manifest_error(path, "triggers.keywords must be a list of words or short phrases")
    seen: dict[str, str] = {}
    for word in words:
        text = " ".join(str(word).split()) if isinstance(word, str) else ""
        if not text or len(text) > MAX_KEYWORD_CHARS:
            raise manifest_error(
                path, f"bad keyword {word!r}", "Use a non-empty word or short phrase"
            )
        seen.setdefault(text.casefold(), text)
    return tuple(seen.values())


def yaml_mapping(prompts: Prompts, path: Path) -> dict[str, object]:
    """Read a YAML file that must hold a mapping."""
    text = prompts.read(path)
    try:
        data: object = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise manifest_error(path, f"not valid YAML{line}", "Fix the YAML syntax") from None
    if not isinstance(data, dict):
        raise manifest_error(path, "the manifest is not a YAML mapping", "Write `key: value` lines")
    return {str(k): v for k, v in data.items()}


def _summary(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)
