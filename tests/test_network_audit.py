"""The network audit hook (rilai_desktop/network_audit.py): what it records, what it does
not (AF_UNIX, binding), what it allows (the person's model endpoints), and the ``network``
line `rilai doctor` prints from the session record, both ways."""

from __future__ import annotations

import functools
import json
import os
import socket
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from rilai_desktop import network_audit
from rilai_desktop.cli.commands import doctor
from rilai_desktop.network_audit import attempts, begin_session, describe, last_session
from rilai_desktop.paths import resolve_paths
from tests.cli_runner import Run, RunWith


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def connect_refused(port: int) -> None:
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock,
        pytest.raises(ConnectionRefusedError),
    ):
        sock.connect(("127.0.0.1", port))


def test_a_connect_to_a_closed_loopback_port_is_recorded(tmp_path: Path) -> None:
    record = begin_session(tmp_path / "data", "test")
    port = closed_port()
    connect_refused(port)
    found = [a for a in attempts() if a.event == "socket.connect"]
    assert [(a.host, a.port, a.allowed) for a in found] == [("127.0.0.1", port, False)]
    body = json.loads(record.read_text())
    assert body["attempted"] == 1 and body["attempts"][0]["port"] == port
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700


def test_af_unix_and_binding_are_not_network_attempts(tmp_path: Path) -> None:
    begin_session(tmp_path / "data", "test")
    address = str(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(address)
        server.listen(1)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(address)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
    socket.getaddrinfo(None, 8080, socket.AF_INET, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    assert attempts() == []


def test_the_local_api_server_binding_is_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rilai_desktop.api.server import ApiServer
    from tests.fake_engine import open_fake_engine

    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    begin_session(tmp_path / "data", "serve")
    engine = open_fake_engine()
    try:
        server = ApiServer(engine, "t" * 43, port=0).start()
        server.stop()
    finally:
        engine.close()
    assert attempts() == []


def test_lookups_and_urllib_requests_are_recorded(tmp_path: Path) -> None:
    begin_session(tmp_path / "data", "test")
    socket.getaddrinfo("127.0.0.1", 80)
    port = closed_port()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/x", timeout=5)
    events = {(a.event, a.port) for a in attempts()}
    assert ("socket.getaddrinfo", 80) in events
    assert ("urllib.Request", port) in events and ("socket.connect", port) in events


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_model_endpoint_is_allowed_and_recorded_apart(tmp_path: Path, host: str) -> None:
    port = closed_port()
    record = begin_session(tmp_path / "data", "test", allowed=lambda: [f"http://{host}:{port}/v1"])
    connect_refused(port)
    connect_refused(closed_port())  # not an endpoint: a leak
    body = json.loads(record.read_text())
    assert body["allowed"] == 1 and body["allowed_attempts"][0]["port"] == port
    assert body["attempted"] == 1 and body["attempts"][0]["port"] != port


def test_a_second_session_call_keeps_the_first(tmp_path: Path) -> None:
    first = begin_session(tmp_path / "data", "window")
    assert begin_session(tmp_path / "data", "window") == first
    assert network_audit.installed()


def test_the_doctor_line_says_none_then_lists_an_attempt(run_with: RunWith) -> None:
    stubbed = functools.partial(doctor.run, libraries=[])
    data_dir = resolve_paths().data_dir

    def network_line() -> dict[str, str]:
        checks = run_with(stubbed, "doctor", "--json", "--no-smoke").json()["checks"]
        return next(c for c in checks if c["name"] == "network")

    assert network_line()["detail"].startswith("no session recorded yet")
    begin_session(data_dir, "window")
    quiet = network_line()
    assert quiet["status"] == "ok"
    assert quiet["detail"].startswith("none attempted this session (`rilai window`")
    assert "running" in quiet["detail"]
    port = closed_port()
    connect_refused(port)
    loud = network_line()
    assert loud["status"] == "fail" and loud["fix"]
    assert loud["detail"].startswith("1 attempted this session")
    assert f"127.0.0.1:{port}" in loud["detail"] and "by socket.connect" in loud["detail"]
    human = run_with(stubbed, "doctor", "--no-smoke").out
    assert any(
        line.startswith("fail  network") and f"127.0.0.1:{port}" in line
        for line in human.splitlines()
    )


def test_an_ended_session_is_described_as_ended(tmp_path: Path) -> None:
    folder = tmp_path / network_audit.RECORD_FOLDER
    folder.mkdir()
    dead = {"started": "2025-01-01T00:00:00+00:00", "pid": 2**22 + 1, "label": "chat"}
    (folder / "20250101T000000000000Z-1.json").write_text(
        json.dumps({**dead, "attempted": 0, "allowed": 0, "attempts": []})
    )
    ok, detail = describe(last_session(tmp_path))
    assert ok and detail.startswith("none attempted this session (`rilai chat`")
    assert "ended" in detail


def test_the_cli_records_a_session_for_the_window(run: Run) -> None:
    assert run("window").code == 0  # the seams' window stand-in: no Qt loop
    record = last_session(resolve_paths().data_dir)
    assert record is not None and record["label"] == "window"
    assert record["pid"] == os.getpid() and record["attempted"] == 0
