"""The window's switch for the local API (issue 29): serves it while ``api.enabled`` is on,
and says where it stands in the status strip ("API on 127.0.0.1:8765", or why not)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from rilai_desktop.api.server import LOOPBACK, ApiServer
from rilai_desktop.api.token import load_or_create_token


class ApiSwitch(QObject):
    state = Signal(str)  # "" when off

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server: ApiServer | None = None

    def apply(self, engine: Any, enabled: bool, port: int, config_dir: Any) -> None:
        """Start, stop or move the server to match the settings."""
        if self.server is not None and (not enabled or self.server.port != port):
            self.stop()
        if not enabled or self.server is not None:
            if not enabled:
                self.state.emit("")
            return
        try:
            token = load_or_create_token(config_dir)
            self.server = ApiServer(engine, token, host=LOOPBACK, port=port).start()
        except (OSError, RuntimeError, SystemExit) as exc:
            self.server = None
            self.state.emit(f"API off: port {port} could not be opened ({exc})"[:120])
            return
        self.state.emit(f"API on {LOOPBACK}:{port}")

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
