"""One running Rilai per data directory: a second ``rilai`` raises the first window.

The first instance takes a ``QLockFile`` in the data directory (``window.lock``) and, holding
it, listens on a ``QLocalServer``. A second instance finds the lock held, connects to that
server, sends ``raise`` (with its argv, as JSON) and exits with a clear message; the first
emits ``raise_requested(argv)``. Only the lock holder ever removes or listens on the server
name, so a second instance can never steal the socket of a live first one — and since it
exits before opening the engine, there is never a second writer on the database.

A lock left by a process that died (a crash, SIGKILL) is stale: ``QLockFile`` sees its pid is
gone and takes it over. The instance key (the server name) is derived from the user and the
data directory, and is overridable (the ``key`` argument, or ``RILAI_INSTANCE_KEY``) so tests
run side by side.
"""

from __future__ import annotations

import contextlib
import enum
import getpass
import hashlib
import json
import os
from pathlib import Path
from typing import Final

from PySide6.QtCore import QLockFile, QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from rilai_desktop.paths import make_private_dirs

LOCK_FILENAME: Final = "window.lock"
KEY_ENV: Final = "RILAI_INSTANCE_KEY"
RAISE: Final = b"raise"
CONNECT_TIMEOUT_MS: Final = 1000
HANDOVER_TRIES: Final = 3
ALREADY_RUNNING: Final = "Rilai is already running: its window was brought to the front."
NOT_ANSWERING: Final = (
    "Rilai is already running (lock {lock}) but did not answer; "
    "close it, or end that process if it hangs."
)


class Claim(enum.Enum):
    """What :meth:`SingleInstance.claim` found."""

    PRIMARY = "primary"  # this process holds the lock and listens
    HANDED_OVER = "handed_over"  # another instance runs and was asked to raise its window
    NOT_ANSWERING = "not_answering"  # the lock is held but nobody answers on the server


def default_key(data_dir: Path) -> str:
    """``rilai-<user>-<hash of the data dir>``: one instance per user and data directory."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:12]
    safe_user = "".join(ch for ch in user if ch.isalnum()) or "user"
    return f"rilai-{safe_user}-{digest}"


def encode_request(argv: list[str]) -> bytes:
    return RAISE + b" " + json.dumps(argv).encode() + b"\n"


def decode_request(data: bytes) -> list[str] | None:
    """The argv of a ``raise`` request, or None when ``data`` is not one."""
    line = data.strip()
    if line == RAISE:
        return []
    if not line.startswith(RAISE + b" "):
        return None
    try:
        argv = json.loads(line[len(RAISE) + 1 :])
    except ValueError:
        return []
    return [str(a) for a in argv] if isinstance(argv, list) else []


class SingleInstance(QObject):
    """The lock and the server of one running instance; see the module doc."""

    raise_requested = Signal(list)  # the second instance's argv

    def __init__(
        self, data_dir: Path, key: str | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.key = key or os.environ.get(KEY_ENV) or default_key(self.data_dir)
        self.lock_path = self.data_dir / LOCK_FILENAME
        self._lock = QLockFile(str(self.lock_path))
        # 0: never stale by age, only when the holder's process is gone.
        self._lock.setStaleLockTime(0)
        self._server: QLocalServer | None = None
        self.message = ""

    @property
    def is_primary(self) -> bool:
        return self._lock.isLocked() and self._server is not None and self._server.isListening()

    def claim(self, argv: list[str] | None = None) -> Claim:
        """Become the running instance, or hand ``argv`` over to the one that is.

        ``message`` then says what happened in words (for the second instance to print).
        """
        make_private_dirs(self.data_dir)
        if self._lock.tryLock(0):
            self._listen()
            self.message = ""
            return Claim.PRIMARY
        for _ in range(HANDOVER_TRIES):  # the first may be starting: its server not up yet
            if self.hand_over(argv or []):
                self.message = ALREADY_RUNNING
                return Claim.HANDED_OVER
            if self._lock.tryLock(CONNECT_TIMEOUT_MS // HANDOVER_TRIES):  # it exited meanwhile
                self._listen()
                self.message = ""
                return Claim.PRIMARY
        self.message = NOT_ANSWERING.format(lock=self.lock_path)
        return Claim.NOT_ANSWERING

    def _listen(self) -> None:
        # Holding the lock, any server file under our name is a dead instance's: remove it.
        QLocalServer.removeServer(self.key)
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.key):
            raise OSError(f"cannot listen on {self.key!r}: {server.errorString()}")
        server.newConnection.connect(self._accept)
        self._server = server

    def hand_over(self, argv: list[str]) -> bool:
        """Ask the running instance to raise its window; True when it was told."""
        socket = QLocalSocket()
        socket.connectToServer(self.key)
        if not socket.waitForConnected(CONNECT_TIMEOUT_MS):
            return False
        socket.write(encode_request(argv))
        sent = socket.waitForBytesWritten(CONNECT_TIMEOUT_MS)
        socket.disconnectFromServer()
        if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
            socket.waitForDisconnected(CONNECT_TIMEOUT_MS)
        return sent

    @Slot()
    def _accept(self) -> None:
        # Bound slots, not lambdas: Qt drops them when this object goes, before it deletes
        # the server and its sockets (a lambda would run on a half-destroyed socket).
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._on_ready_read)
            socket.disconnected.connect(self._on_disconnected)
            if socket.bytesAvailable():
                self._read(socket)

    @Slot()
    def _on_ready_read(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    @Slot()
    def _on_disconnected(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)
            socket.deleteLater()

    def _read(self, socket: QLocalSocket) -> None:
        while socket.canReadLine():
            argv = decode_request(bytes(socket.readLine().data()))
            if argv is not None:
                self.raise_requested.emit(argv)

    def release(self) -> None:
        """Stop listening and unlock (on quit); safe to call twice."""
        if self._server is not None:
            for socket in self._server.findChildren(QLocalSocket):
                with contextlib.suppress(RuntimeError):  # already disconnected
                    socket.readyRead.disconnect(self._on_ready_read)
                    socket.disconnected.disconnect(self._on_disconnected)
                socket.abort()
            self._server.close()
            self._server.deleteLater()
            self._server = None
        if self._lock.isLocked():
            self._lock.unlock()
