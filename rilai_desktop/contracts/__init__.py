"""Rilai contracts: every typed schema the components speak (seed 000, plus ours).

No I/O and no heavy imports here: pydantic only, plus the Protocols more than one engine
package speaks (``ports.EventSink``, ``clock.Clock``).
"""

from rilai_desktop.contracts.agent import (
    AgentManifest,
    AgentOutput,
    AgentPriority,
    AgentSafetyProfile,
    Claim,
    ClaimType,
)
from rilai_desktop.contracts.council import CouncilDecision, CriticResult, SpeechAct, VoiceResult
from rilai_desktop.contracts.events import EngineEvent, EventKind
from rilai_desktop.contracts.memory import EpisodicEvent, MemoryCandidate, UserFact
from rilai_desktop.contracts.payloads import PAYLOAD_MODELS, validate_payload
from rilai_desktop.contracts.ports import EventSink
from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.contracts.workspace import (
    MODULATOR_NAMES,
    STANCE_DIMENSIONS,
    GlobalModulators,
    Goal,
    StanceVector,
    WorkspaceState,
)

__all__ = [
    "MODULATOR_NAMES",
    "PAYLOAD_MODELS",
    "SENSOR_NAMES",
    "STANCE_DIMENSIONS",
    "AgentManifest",
    "AgentOutput",
    "AgentPriority",
    "AgentSafetyProfile",
    "Claim",
    "ClaimType",
    "CouncilDecision",
    "CriticResult",
    "EngineEvent",
    "EpisodicEvent",
    "EventKind",
    "EventSink",
    "GlobalModulators",
    "Goal",
    "MemoryCandidate",
    "SensorOutput",
    "SpeechAct",
    "StanceVector",
    "UserFact",
    "VoiceResult",
    "WorkspaceState",
    "validate_payload",
]
