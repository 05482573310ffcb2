"""The resumable, verified model download, against a loopback HTTP server with Range support."""

from __future__ import annotations

import hashlib
import http.server
import random
import re
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.llm.download import download
from rilai_desktop.llm.errors import ChecksumMismatchError, InstallError

PAYLOAD = random.Random(7).randbytes(3 * 1024 * 1024)
SHA = hashlib.sha256(PAYLOAD).hexdigest()
WRONG = random.Random(8).randbytes(len(PAYLOAD))
CUT = 1_000_000  # bytes the "drop" mode sends before hanging up on the first request


class _Server(http.server.HTTPServer):
    mode = "normal"  # normal | ignore_range | drop | 404 | wrong
    ranges: list[str | None]

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client hanging up early is not a test failure


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        srv = self.server
        rng = self.headers.get("Range")
        srv.ranges.append(rng)
        if srv.mode == "404":
            self.send_error(404, "Not Found")
            return
        data = WRONG if srv.mode == "wrong" else PAYLOAD
        match = re.fullmatch(r"bytes=(\d+)-", rng or "")
        start, status = 0, 200
        if match and srv.mode != "ignore_range":
            start, status = int(match.group(1)), 206
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        body = data[start:]
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if srv.mode == "drop" and len(srv.ranges) == 1:
            self.wfile.write(body[:CUT])  # then close: the client sees a short body
            return
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.ranges = []
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        thread.join()
        srv.server_close()


@pytest.fixture
def url(server: _Server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/model.gguf"


def _get(url: str, dest: Path, sha: str = SHA, **kw: object) -> Path:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    return download(url, dest, sha, opener=opener, timeout=5.0, **kw)  # type: ignore[arg-type]


def _part(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


def test_full_download_verifies_and_renames(url: str, server: _Server, tmp_path: Path) -> None:
    dest = tmp_path / "models" / "m.gguf"
    assert _get(url, dest) == dest
    assert dest.read_bytes() == PAYLOAD
    assert not _part(dest).exists()
    assert server.ranges == [None]


def test_interrupted_download_keeps_part_and_resumes(
    url: str, server: _Server, tmp_path: Path
) -> None:
    server.mode = "drop"
    dest = tmp_path / "m.gguf"
    with pytest.raises(InstallError) as info:
        _get(url, dest)
    assert url in info.value.message
    assert "kept" in info.value.message
    assert any("resume" in hint for hint in info.value.hints)
    assert _part(dest).read_bytes() == PAYLOAD[:CUT]
    assert not dest.exists()

    seen: list[tuple[int, int | None]] = []
    _get(url, dest, progress=lambda done, total: seen.append((done, total)))
    assert server.ranges == [None, f"bytes={CUT}-"]
    assert dest.read_bytes() == PAYLOAD
    assert not _part(dest).exists()
    assert seen[0] == (CUT, len(PAYLOAD))
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))


def test_server_ignoring_range_restarts_from_zero(
    url: str, server: _Server, tmp_path: Path
) -> None:
    server.mode = "ignore_range"
    dest = tmp_path / "m.gguf"
    _part(dest).write_bytes(b"garbage that is not the start of the file")
    _get(url, dest)
    assert server.ranges == ["bytes=41-"]
    assert dest.read_bytes() == PAYLOAD
    assert not _part(dest).exists()


def test_complete_part_answered_416_is_verified_and_kept(
    url: str, server: _Server, tmp_path: Path
) -> None:
    dest = tmp_path / "m.gguf"
    _part(dest).write_bytes(PAYLOAD)
    _get(url, dest)
    assert server.ranges == [f"bytes={len(PAYLOAD)}-"]
    assert dest.read_bytes() == PAYLOAD
    assert not _part(dest).exists()


def test_oversized_bad_part_answered_416_starts_over(
    url: str, server: _Server, tmp_path: Path
) -> None:
    dest = tmp_path / "m.gguf"
    _part(dest).write_bytes(PAYLOAD + b"extra")
    _get(url, dest)
    assert server.ranges == [f"bytes={len(PAYLOAD) + 5}-", None]
    assert dest.read_bytes() == PAYLOAD


def test_checksum_mismatch_removes_everything(url: str, server: _Server, tmp_path: Path) -> None:
    server.mode = "wrong"
    dest = tmp_path / "m.gguf"
    with pytest.raises(ChecksumMismatchError) as info:
        _get(url, dest)
    err = info.value
    assert err.code == "RIL-023"
    assert url in err.message
    assert SHA in err.message
    assert hashlib.sha256(WRONG).hexdigest() in err.message
    assert err.hints
    assert not dest.exists()
    assert not _part(dest).exists()


def test_404_is_install_error_naming_url(url: str, server: _Server, tmp_path: Path) -> None:
    server.mode = "404"
    dest = tmp_path / "m.gguf"
    with pytest.raises(InstallError) as info:
        _get(url, dest)
    assert info.value.code == "RIL-030"
    assert url in info.value.message
    assert "404" in info.value.message
    assert not dest.exists()


def test_unreachable_host_is_install_error(tmp_path: Path) -> None:
    srv = _Server(("127.0.0.1", 0), _Handler)
    port = srv.server_address[1]
    srv.server_close()  # nothing listens on the port any more
    url = f"http://127.0.0.1:{port}/m.gguf"
    with pytest.raises(InstallError) as info:
        _get(url, tmp_path / "m.gguf")
    assert url in info.value.message


@pytest.mark.parametrize("sha", ["", "abc", "g" * 64, SHA + "0"])
def test_bad_sha_is_install_error(url: str, server: _Server, tmp_path: Path, sha: str) -> None:
    with pytest.raises(InstallError) as info:
        _get(url, tmp_path / "m.gguf", sha)
    assert info.value.code == "RIL-030"
    assert info.value.hints
    assert server.ranges == []


@pytest.mark.parametrize("bad", ["ftp://example.org/m.gguf", "file:///etc/passwd", "m.gguf"])
def test_non_http_url_is_install_error(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InstallError) as info:
        _get(bad, tmp_path / "m.gguf")
    assert info.value.code == "RIL-030"
    assert bad in info.value.message


def test_existing_correct_dest_makes_no_request(url: str, server: _Server, tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    dest.write_bytes(PAYLOAD)
    assert _get(url, dest, SHA.upper()) == dest
    assert server.ranges == []


def test_existing_wrong_dest_is_replaced(url: str, server: _Server, tmp_path: Path) -> None:
    dest = tmp_path / "m.gguf"
    dest.write_bytes(b"stale")
    _get(url, dest)
    assert dest.read_bytes() == PAYLOAD
    assert server.ranges == [None]


def test_progress_increases_to_total(url: str, server: _Server, tmp_path: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    _get(url, tmp_path / "m.gguf", progress=lambda d, t: seen.append((d, t)), chunk_size=1 << 18)
    counts = [done for done, _ in seen]
    assert len(counts) >= 12
    assert counts == sorted(set(counts))
    assert {total for _, total in seen} == {len(PAYLOAD)}
    assert counts[-1] == len(PAYLOAD)
