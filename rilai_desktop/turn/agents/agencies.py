"""The ten agencies of seed 001: their agents, the value each advocates, the always-on set.

This is the one list the manifests in ``prompts/agents/`` are checked against: a manifest
for an agent not listed here, or an agent listed here without a manifest, is an error.

The issue's title says 45 agents; its own list (and so this table) names 44. Seed 001's
README says 49 without naming the other five. We build the 44 that are named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Agency:
    id: str  # "emotion"
    value: str  # the value the agency advocates, e.g. "WELLBEING"
    domain: str  # seed 001's grouping, e.g. "Evaluative"
    agents: tuple[str, ...]  # agent names, e.g. ("wellbeing", "stress", ...)
    weight: float  # how much the agency's value counts when scheduling (0.5-1.0)


AGENCIES: Final[tuple[Agency, ...]] = (
    Agency(
        "planning",
        "PRODUCTIVITY",
        "Goal-Oriented",
        ("difference_engine", "short_term", "long_term", "priority"),
        0.6,
    ),
    Agency("resource", "RESOURCES", "Goal-Oriented", ("financial", "time", "energy"), 0.6),
    Agency(
        "self",
        "IDENTITY",
        "Goal-Oriented",
        ("identity", "values", "meta_monitor", "attachment_learner", "reflection", "self_model"),
        0.8,
    ),
    Agency(
        "emotion",
        "WELLBEING",
        "Evaluative",
        ("wellbeing", "stress", "motivation", "mood_regulator", "wanting"),
        1.0,
    ),
    Agency(
        "social",
        "CONNECTION",
        "Evaluative",
        ("relationships", "empathy", "norms", "attachment_detector", "mental_model"),
        0.9,
    ),
    Agency(
        "reasoning",
        "UNDERSTANDING",
        "Problem-Solving",
        ("debugger", "researcher", "reformulator", "analogizer", "creative", "magnitude"),
        0.7,
    ),
    Agency(
        "creative",
        "CREATIVITY",
        "Problem-Solving",
        ("brainstormer", "synthesizer", "frame_builder"),
        0.5,
    ),
    Agency("inhibition", "SAFETY", "Control", ("censor", "suppressor", "exception_handler"), 1.0),
    Agency(
        "monitoring",
        "AWARENESS",
        "Control",
        ("trigger_watcher", "anomaly_detector", "interrupt_manager", "attention"),
        0.8,
    ),
    Agency(
        "execution",
        "ACTION",
        "Action",
        ("executor", "habits", "script_runner", "context_manager", "output_filter"),
        0.5,
    ),
)

ALWAYS_ON: Final[tuple[str, ...]] = (
    "inhibition.censor",
    "emotion.stress",
    "inhibition.exception_handler",
    "monitoring.trigger_watcher",
    "monitoring.anomaly_detector",
)

ALL_AGENT_IDS: Final[tuple[str, ...]] = tuple(
    f"{agency.id}.{name}" for agency in AGENCIES for name in agency.agents
)

AGENCY_BY_ID: Final[dict[str, Agency]] = {agency.id: agency for agency in AGENCIES}


def agency_of(agent_id: str) -> Agency:
    """The agency an agent id ('emotion.stress') belongs to."""
    return AGENCY_BY_ID[agent_id.split(".", 1)[0]]
