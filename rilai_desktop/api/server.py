"""uvicorn serving the API app in a thread: ``rilai serve`` (in the foreground), the
window's switch and the tests (in the background)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Final

import uvicorn

from rilai_desktop.api.app import MAX_BODY, create_app

LOOPBACK: Final[str] = "127.0.0.1"
DEFAULT_PORT: Final[int] = 8765


def free_port(host: str = LOOPBACK) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class ApiServer:
    """The API over ``engine`` on ``host:port``; ``start`` returns once it listens."""

    def __init__(
        self,
        engine: Any,
        token: str,
        *,
        host: str = LOOPBACK,
        port: int = DEFAULT_PORT,
        max_body: int = MAX_BODY,
    ) -> None:
        self.host, self.port = host, port or free_port(host)
        config = uvicorn.Config(
            create_app(engine, token, max_body=max_body),
            host=self.host,
            port=self.port,
            log_level="warning",
            access_log=False,  # the request event is the log (never a body)
            lifespan="off",
            ws="websockets-sansio",
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def serve(self) -> None:
        """In the foreground until interrupted (``rilai serve``)."""
        self._server.run()

    def _run(self) -> None:
        with contextlib.suppress(SystemExit):  # uvicorn exits when it cannot bind
            self._server.run()

    def start(self, timeout: float = 10.0) -> ApiServer:
        """Serve in a thread; an OSError when the port is taken (said before binding)."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind((self.host, self.port))  # raises "address already in use"
        self._thread = threading.Thread(target=self._run, name="rilai-api", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the API server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
