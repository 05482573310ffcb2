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
from rilai_desktop.turn.agencies import ALWAYS_ON


@dataclass(frozen=True)
class Triggers:
    """What wakes an agent in wave 1+ (see ``scheduler.py``)."""

    sensors: Mapping[str, float] = field(default_factory=dict)  # sensor name -> weight 0..1
    modulators: Mapping[str, float] = field(default_factory=dict)  # modulator -> weight 0..1
    keywords: tuple[str, ...] = ()  # words/phrases, matched on word boundaries, any case


@dataclass(frozen=True)
class AgentSpec:
    manifest: AgentManifest
    prompt: str  # the agent's instructions (the .md file), stripped
    triggers: Triggers

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def agency(self) -> str:
        return self.manifest.agency_id

    @property
    def always_on(self) -> bool:
        return self.manifest.id in ALWAYS_ON
