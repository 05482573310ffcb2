"""What the window shows when it opens (issue 31): the check-ins that waited for it and the
daily digest, through ``app/checkins.py`` — read off the GUI thread (it waits for the
engine's worker), shown, then logged seen (NUDGE_SEEN), so no later open shows them again.

- each check-in that waited for the next open joins the conversation as a Rilai check-in
  (its time in the row's header) and the engine's conversation (``note_nudge_shown``),
  so the next reply answers it;
- the digest (L1) is :class:`DigestBanner`, a quiet line above the conversation with a
  Dismiss button — never a pop-up;
- the Check-ins dock (``NudgeList``) is rebuilt from the log: every check-in it holds,
  with its state; while the window is open, a digest or "next open" check-in the daemon
  logs joins it too (the delivered ones arrive through ``TrayDelivery``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from rilai_desktop.ui.nudge_list import NudgeList

if TYPE_CHECKING:
    from rilai_desktop.app.checkins import CheckIns, OnOpen
    from rilai_desktop.contracts import EngineEvent
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.ui.bridge import EngineBridge
    from rilai_desktop.ui.main_window import MainWindow

log = logging.getLogger(__name__)


class DigestBanner(QFrame):
    """The daily digest as a quiet line above the conversation; Dismiss hides it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("digest-banner")
        self.setAccessibleName("Your daily digest")
        self.text = QLabel()
        self.text.setObjectName("digest-text")
        self.text.setWordWrap(True)
        self.dismiss = QToolButton()
        self.dismiss.setText("Dismiss")
        self.dismiss.setAccessibleName("Dismiss the daily digest")
        self.dismiss.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 12, 6)
        row.addWidget(self.text, 1)
        row.addWidget(self.dismiss)
        self.hide()

    def show_digest(self, nudges: Sequence[Nudge], now: datetime) -> None:
        from rilai_desktop.app.checkins import DIGEST_TITLE, when_words
        from rilai_desktop.daemon.delivery import printable

        lines = [f"{when_words(n.at, now)} · {printable(n.suggestion)}" for n in nudges]
        self.text.setText("\n".join([DIGEST_TITLE + ":", *lines]))
        self.text.setAccessibleName(" ".join([DIGEST_TITLE + ".", *lines]))
        self.show()


class CheckInsOnOpen(QObject):
    """Signals: ``shown`` (the ``OnOpen`` once it is on screen), ``marked`` (the NUDGE_SEEN
    event, or None when nothing was shown; ``done`` is then true and ``seen`` holds it). A
    failed read or write is logged: what waited is still there at the next open."""

    shown = Signal(object)
    marked = Signal(object)
    _read = Signal(object)

    def __init__(
        self,
        window: MainWindow,
        nudge_list: NudgeList,
        *,
        clock: Clock | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window, self.nudge_list, self._clock = window, nudge_list, clock
        self.banner = DigestBanner()
        window.add_banner(self.banner)
        self._checkins: CheckIns | None = None
        self._bridge: EngineBridge | None = None
        self._read.connect(self._show)
        self.marked.connect(self._marked)
        self.done = False
        self.seen: EngineEvent | None = None

    def start(self, bridge: EngineBridge) -> None:
        """The Engine is there: read what waited (off the GUI thread), then show it."""
        from rilai_desktop.app.checkins import CheckIns

        self._bridge = bridge
        self._checkins = checkins = CheckIns(bridge.engine, "window", clock=self._clock)
        bridge.logged.connect(self._logged)
        self._off_thread(checkins.open, self._read.emit, "read")

    def _show(self, opened: OnOpen) -> None:
        self.nudge_list.set_entries(opened.entries)
        for nudge in opened.pending:
            self.window.view.add_message("nudge", nudge.suggestion, nudge.at)
            if self._bridge is not None:
                self._bridge.engine.note_nudge_shown(nudge.suggestion)
        if opened.digest:
            self.banner.show_digest(opened.digest, opened.at)
        self.shown.emit(opened)
        checkins = self._checkins
        if checkins is not None and opened.to_show:
            self._off_thread(lambda: checkins.mark_seen(opened), self.marked.emit, "mark")
        else:
            self.marked.emit(None)

    def _marked(self, event: EngineEvent | None) -> None:
        self.seen, self.done = event, True

    def _logged(self, event: EngineEvent) -> None:
        """A check-in the daemon logged while the window is open: into the dock."""
        if event.kind.value != "proactive_nudge":  # most events: nothing to import
            return
        from rilai_desktop.app.checkins import DIGEST, HELD
        from rilai_desktop.daemon.nudges.history import record_from_event

        record = record_from_event(event)
        if record.level >= 1:
            self.nudge_list.add_logged(record.to_nudge(), DIGEST if record.level == 1 else HELD)

    def _off_thread(self, work: Any, then: Any, what: str) -> None:
        def run() -> None:
            from rilai_desktop.errors import EngineClosedError

            try:
                done = work()
            except EngineClosedError:
                return  # the window closed meanwhile
            except Exception:
                log.exception("the check-ins on open could not %s", what)
                return
            try:
                then(done)
            except RuntimeError:  # the window (and this object) went away meanwhile
                log.info("the window closed before the check-ins on open could %s", what)

        threading.Thread(target=run, name="rilai-ui-checkins", daemon=True).start()
