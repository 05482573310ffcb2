"""What the composition root assembles for an Engine: the log, the models, memory and the
turn runner over them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rilai_desktop.app.core import Core
    from rilai_desktop.memory.manager import MemoryManager
    from rilai_desktop.turn.runner import TurnRunner


class LoadedModels(Protocol):
    """The model router as the engine holds it: a model per role, what is loaded, close."""

    def for_role(self, role: str, replica: int = 0) -> Any: ...

    def loaded_models(self) -> list[str]: ...

    def close(self) -> None: ...


@dataclass
class EngineParts:
    """What the composition root assembles: the log (in ``core``), the models, memory and
    the turn runner over them."""

    core: Core
    models: LoadedModels
    memory: MemoryManager | None
    runner: TurnRunner
