"""Agent manifests and prompts, loaded from ``prompts/agents/<agency>/<agent>.yaml|.md``.

Each YAML file holds the seed-000 AgentManifest fields plus a ``triggers`` block the
scheduler reads (which sensors, modulators and words wake the agent). The ``.md`` file
named by ``prompt_template`` holds the agent's instructions. The set of agents must match
``agencies.ALL_AGENT_IDS`` exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rilai_desktop.contracts import AgentManifest
from rilai_desktop.turn.agents.agencies import ALWAYS_ON


@dataclass(frozen=True)
class Triggers:
    """What wakes an agent in wave 1+ (see ``selection.py``)."""

    sensors: Mapping[str, float] = field(default_factory=dict)  # sensor name -> weight 0..1
    modulators: Mapping[str, float] = field(default_factory=dict)  # modulator -> weight 0..1
    keywords: tuple[str, ...] = ()  # words/phrases, matched on word boundaries, any case


@dataclass(frozen=True)
class Label:
    """One answer an agent may give (``labels:`` in its manifest, docs/agents.md).

    The model only picks the label; the claim the council reads is ``claim`` (written by
    a person, in the manifest), typed ``type`` with ``urgency`` — never the model's prose.
    """

    name: str  # the enum value the model writes, e.g. "lonely"
    claim: str  # e.g. "they sound lonely"
    type: str = "observation"  # a ClaimType value
    urgency: int = 1  # 0..3
    stance: Mapping[str, float] = field(default_factory=dict)  # e.g. {"closeness": 0.05}
    # sensor -> floor: the label makes a claim only when the sensor reads at least this
    # (a 135M model's "self_harm: yes" on an ordinary message must not reach the council)
    gate: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentSpec:
    manifest: AgentManifest
    prompt: str  # the agent's question (the .md file), stripped
    triggers: Triggers
    labels: tuple[Label, ...] = ()  # the answers it may give; empty: the legacy free text

    def label(self, name: str) -> Label | None:
        return next((lab for lab in self.labels if lab.name == name), None)

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def agency(self) -> str:
        return self.manifest.agency_id

    @property
    def always_on(self) -> bool:
        return self.manifest.id in ALWAYS_ON
