"""`rilai models download URL --sha256 HEX`: a resumable, verified download (stdlib only).

Bytes go to ``DEST.part``; a second run resumes it with ``Range: bytes=N-``. Only a file whose
SHA-256 matches is ever renamed onto ``DEST`` (fsync, then ``os.replace``).
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rilai_desktop.llm.errors import ChecksumMismatchError, InstallError

if TYPE_CHECKING:
    from hashlib import _Hash

Progress = Callable[[int, int | None], None]
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTENT_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_NET_ERRORS = (OSError, http.client.HTTPException)  # URLError, HTTPError, timeouts, resets


def download(
    url: str,
    dest: Path,
    sha256: str,
    *,
    progress: Progress | None = None,
    chunk_size: int = 1 << 20,
    timeout: float = 30.0,
    opener: urllib.request.OpenerDirector | None = None,
) -> Path:
    """Download ``url`` to ``dest`` (resuming ``dest.part``); raise unless it matches ``sha256``."""
    expected = sha256.strip().lower()
    if not _HEX64.fullmatch(expected):
        raise InstallError(
            f"Not a SHA-256 digest: {sha256!r} (need 64 hex characters)",
            context={"url": url, "sha256": sha256},
            recovery_suggestions=["Copy the full SHA-256 from the model page: `sha256sum FILE`"],
        )
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise InstallError(
            f"Refusing to download {url!r}: only http:// and https:// URLs are supported",
            context={"url": url},
            recovery_suggestions=["Pass an http(s) URL, or copy the file in and use the path"],
        )
    dest = Path(dest)
    if dest.is_file() and _hash_file(dest).hexdigest() == expected:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    op = opener if opener is not None else urllib.request.build_opener()
    for _attempt in range(3):  # at most: resume, then one restart from zero
        offset = part.stat().st_size if part.is_file() else 0
        headers = {"User-Agent": "rilai-desktop", "Accept-Encoding": "identity"}
        if offset:
            headers["Range"] = f"bytes={offset}-"
        try:
            resp = op.open(urllib.request.Request(url, headers=headers), timeout=timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 416 and offset:  # the part is already complete (or too big)
                hasher = _hash_file(part)
                if hasher.hexdigest() == expected:
                    if progress is not None:
                        progress(offset, offset)
                    return _finish(part, dest)
                part.unlink()
                continue
            raise _net_error(url, part, f"HTTP {exc.code} {exc.reason}", exc.code) from exc
        except _NET_ERRORS as exc:
            raise _net_error(url, part, _reason(exc)) from exc
        with resp:
            status = resp.status
            start, total = _parse_range(resp.headers.get("Content-Range"))
            if status == 206 and not (offset and start == offset):
                part.unlink(missing_ok=True)  # a range we did not ask for: start over cleanly
                continue
            if status == 206:
                hasher, mode = _hash_file(part), "ab"
            else:  # 200: the server ignored Range (or there was no part): start from zero
                offset, hasher, mode = 0, hashlib.sha256(), "wb"
                length = resp.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
            done, failure = offset, None
            with open(part, mode) as out:
                if progress is not None and offset:
                    progress(done, total)
                while True:
                    try:
                        chunk = resp.read(chunk_size)
                    except _NET_ERRORS as exc:
                        failure = exc
                        break
                    if not chunk:
                        break
                    out.write(chunk)
                    hasher.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
                out.flush()
                os.fsync(out.fileno())
            if failure is not None:
                raise _net_error(url, part, _reason(failure), status) from failure
            if total is not None and done < total:
                why = f"connection closed after {done} of {total} bytes"
                raise _net_error(url, part, why, status)
        actual = hasher.hexdigest()
        if actual != expected:
            part.unlink(missing_ok=True)
            raise ChecksumMismatchError(
                f"Checksum mismatch for {url}: expected sha256 {expected}, got {actual}; "
                "the download was deleted",
                context={"url": url, "dest": str(dest), "expected": expected, "actual": actual},
                recovery_suggestions=[
                    "Check that the --sha256 value belongs to this exact file (and quantization)",
                    "If it does, the server sent a different file: retry later or use a mirror",
                ],
            )
        return _finish(part, dest)
    raise _net_error(url, part, "the server kept answering with unusable byte ranges")


def _finish(part: Path, dest: Path) -> Path:
    with open(part, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(part, dest)
    try:  # make the rename itself durable (POSIX); best effort elsewhere
        fd = os.open(dest.parent, os.O_RDONLY)
    except OSError:
        return dest
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
    return dest


def _hash_file(path: Path) -> _Hash:
    hasher = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            hasher.update(block)
    return hasher


def _parse_range(value: str | None) -> tuple[int | None, int | None]:
    match = _CONTENT_RANGE.fullmatch((value or "").strip())
    if match is None:
        return None, None
    total = match.group(3)
    return int(match.group(1)), None if total == "*" else int(total)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _net_error(url: str, part: Path, reason: str, status: int | None = None) -> InstallError:
    kept = part.stat().st_size if part.is_file() else 0
    if kept:
        tail = f"the partial download ({kept} bytes) is kept at {part}"
        hint = "Run the same command again: it resumes from the kept bytes"
    else:
        tail = "nothing was kept"
        hint = "Run the same command again once the URL works"
    return InstallError(
        f"Download of {url} failed: {reason}; {tail}",
        context={"url": url, "part": str(part), "bytes_kept": kept, "status": status},
        recovery_suggestions=[hint, "Check the URL and your network connection"],
    )
