"""Every network attempt this process makes, on the record: the proof that Rilai stays offline.

A Python audit hook (``sys.addaudithook``) sees ``socket.connect``, ``socket.sendto``,
``socket.getaddrinfo`` and ``urllib.Request`` before they happen, whichever library makes
them. An audit hook can never be removed, so :func:`install` adds it once per process and
later calls only update what it allows. The hook is cheap: every other audit event (there are
many: ``open``, ``import``, ``exec``…) costs one set lookup; it writes only when an attempt
happens.

Not counted: AF_UNIX sockets (the single-instance check, X11, asyncio's self-pipe), binding
a socket (the local API server listens, it does not connect) and a passive
``getaddrinfo(None, port)`` (what a server resolves to bind). Allowed but still recorded,
apart from the leaks: the model endpoints the person added (``ModelRouter.endpoints()``,
listed by `rilai doctor`), loopback to them included.

A *session* is one long-lived process (the window, the shell, ``rilai chat``, ``rilai
serve``, ``rilai daemon run``): :func:`begin_session` writes ``<data>/network-audit/<start>-
<pid>.json`` (0600, in a 0700 folder) and every later attempt rewrites it, so `rilai doctor`,
another process, can say what the running or last session attempted
(:func:`last_session`, :func:`describe`). Standard library only: it sits among the leaves.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

WATCHED = frozenset({"socket.connect", "socket.getaddrinfo", "socket.sendto", "urllib.Request"})
RECORD_FOLDER = "network-audit"
KEEP_SESSIONS = 20  # older session records are removed when a new session begins
MAX_LISTED = 200  # attempts listed per session file (the counts go on beyond it)
MAX_KEPT = 2000  # attempts kept in memory per session
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

AllowedSource = Callable[[], Iterable[str]]  # the endpoint URLs the person added


@dataclass(frozen=True)
class Attempt:
    """One network attempt: which audit event, to where, when, and whether it was allowed."""

    event: str
    host: str
    port: int | None
    at: str
    allowed: bool = False

    @property
    def where(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"


class _Audit:
    """The process's one record (module state: there is one audit hook per process)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = threading.local()  # re-entry guard: the hook's own work is not audited
        self.installed = False
        self.allowed_source: AllowedSource | None = None
        self.allowed: dict[str, set[int | None]] | None = None  # host -> ports (None: any)
        self.attempts: list[Attempt] = []
        self.leaks = 0
        self.allowed_count = 0
        self.session: dict[str, Any] | None = None
        self.record: Path | None = None


_AUDIT = _Audit()


def install(allowed: AllowedSource | None = None) -> None:
    """Add the audit hook (once per process; later calls only replace ``allowed``, a
    function giving the endpoint URLs that may be reached, asked on the first attempt)."""
    with _AUDIT.lock:
        if allowed is not None:
            _AUDIT.allowed_source = allowed
            _AUDIT.allowed = None
        if _AUDIT.installed:
            return
        _AUDIT.installed = True
    sys.addaudithook(_hook)


def installed() -> bool:
    return _AUDIT.installed


def begin_session(data_dir: Path, label: str, allowed: AllowedSource | None = None) -> Path:
    """Start recording this process's attempts for `rilai doctor` (installs the hook if
    needed). Idempotent for one data folder: a second call keeps the first session (the CLI
    and the window both call it). A call for another data folder (tests, benches in a
    scratch folder) starts a new session there, forgetting the earlier attempts."""
    install()
    folder = data_dir / RECORD_FOLDER
    with _AUDIT.lock:
        if _AUDIT.record is not None and _AUDIT.record.parent == folder:
            return _AUDIT.record
        if _AUDIT.record is not None:
            _AUDIT.attempts, _AUDIT.leaks, _AUDIT.allowed_count = [], 0, 0
        if allowed is not None or _AUDIT.record is not None:
            _AUDIT.allowed_source, _AUDIT.allowed = allowed, None
        started = datetime.now(UTC)
        _private_dirs(folder)
        _prune(folder)
        name = f"{started.strftime('%Y%m%dT%H%M%S%fZ')}-{os.getpid()}.json"
        _AUDIT.session = {"started": started.isoformat(), "pid": os.getpid(), "label": label}
        _AUDIT.record = folder / name
        _write_record()
        return _AUDIT.record


def attempts() -> list[Attempt]:
    """Every attempt this process made since the hook was installed (leaks and allowed)."""
    with _AUDIT.lock:
        return list(_AUDIT.attempts)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event not in WATCHED:
        return
    if getattr(_AUDIT.inside, "busy", False):
        return
    _AUDIT.inside.busy = True
    try:
        _observe(event, args)
    except Exception:  # an audit hook that raises would abort the caller's call
        pass
    finally:
        _AUDIT.inside.busy = False


def _observe(event: str, args: tuple[Any, ...]) -> None:
    target = _target(event, args)
    if target is None:
        return
    host, port = target
    attempt = Attempt(
        event=event,
        host=host,
        port=port,
        at=datetime.now(UTC).isoformat(timespec="milliseconds"),
        allowed=_is_allowed(host, port),
    )
    with _AUDIT.lock:
        if len(_AUDIT.attempts) < MAX_KEPT:  # the counts go on beyond it
            _AUDIT.attempts.append(attempt)
        if attempt.allowed:
            _AUDIT.allowed_count += 1
        else:
            _AUDIT.leaks += 1
        if _AUDIT.record is not None:
            _write_record()


def _target(event: str, args: tuple[Any, ...]) -> tuple[str, int | None] | None:
    """(host, port) of an attempt, or None when the event is not a network attempt."""
    if event in ("socket.connect", "socket.sendto"):
        sock, address = args[0], args[1]
        if getattr(sock, "family", None) == socket.AF_UNIX:
            return None
        if isinstance(address, tuple) and len(address) >= 2:
            return _host(address[0]), _port(address[1])
        return _host(address), None
    if event == "socket.getaddrinfo":
        host = args[0]
        if host is None:  # a passive lookup: what a server resolves to bind, not a connect
            return None
        return _host(host), _port(args[1])
    if event == "urllib.Request":
        parts = urlsplit(str(args[0]))
        if parts.scheme.lower() not in ("http", "https", "ftp") or not parts.hostname:
            return None
        return _host(parts.hostname), _url_port(str(args[0]))
    return None


def _host(value: Any) -> str:
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    return str(value).strip("[]").lower()


def _port(value: Any) -> int | None:
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        with contextlib.suppress(OSError):
            return socket.getservbyname(str(value))
        return None


def _url_port(url: str) -> int | None:
    parts = urlsplit(url)
    try:
        explicit = parts.port
    except ValueError:
        return None
    if explicit is not None:
        return explicit
    return {"http": 80, "https": 443, "ftp": 21}.get(parts.scheme.lower())


# ── what is allowed: the person's model endpoints ─────────────────────────────────────────


def _is_allowed(host: str, port: int | None) -> bool:
    allowed = _allowed_hosts()
    ports = allowed.get(host)
    if ports is not None:
        return port is None or None in ports or port in ports
    return False


def _allowed_hosts() -> dict[str, set[int | None]]:
    """host -> ports of every endpoint, with the addresses each host name resolves to
    (asked once, on the first attempt; loopback names map to the loopback addresses)."""
    cached = _AUDIT.allowed
    if cached is not None:
        return cached
    hosts: dict[str, set[int | None]] = {}
    source = _AUDIT.allowed_source
    urls: list[str] = []
    if source is not None:
        with contextlib.suppress(Exception):
            urls = [str(u) for u in source()]
    for url in urls:
        parts = urlsplit(url)
        if not parts.hostname:
            continue
        host, port = _host(parts.hostname), _url_port(url)
        for name in {host, *_addresses(host)}:
            hosts.setdefault(name, set()).add(port)
    _AUDIT.allowed = hosts
    return hosts


def _addresses(host: str) -> set[str]:
    if host in LOOPBACK_NAMES:
        return {"127.0.0.1", "::1"}
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return set()
    try:
        found = socket.getaddrinfo(host, None)
    except OSError:
        return set()
    return {_host(info[4][0]) for info in found}


# ── the session record ────────────────────────────────────────────────────────────────────


def _write_record() -> None:
    """Rewrite this session's file (caller holds the lock). Atomic and owner-only."""
    record = _AUDIT.record
    if record is None or _AUDIT.session is None:
        return
    body = {
        **_AUDIT.session,
        "attempted": _AUDIT.leaks,
        "allowed": _AUDIT.allowed_count,
        "attempts": [asdict(a) for a in _AUDIT.attempts if not a.allowed][:MAX_LISTED],
        "allowed_attempts": [asdict(a) for a in _AUDIT.attempts if a.allowed][:MAX_LISTED],
    }
    fd, tmp = tempfile.mkstemp(prefix=".audit-", dir=record.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(body, fh, indent=1)
        os.chmod(tmp, 0o600)
        os.replace(tmp, record)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _private_dirs(path: Path) -> None:
    """``path`` and its missing parents, 0700 whatever the umask (as paths.make_private_dirs;
    this module keeps to the standard library)."""
    missing: list[Path] = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
            folder.chmod(0o700)


def _prune(folder: Path) -> None:
    records = sorted(folder.glob("*.json"))
    for old in records[: max(0, len(records) - KEEP_SESSIONS + 1)]:
        with contextlib.suppress(OSError):
            old.unlink()


def last_session(data_dir: Path) -> dict[str, Any] | None:
    """The newest session record under ``data_dir`` (the running or last session)."""
    folder = data_dir / RECORD_FOLDER
    for path in sorted(folder.glob("*.json"), reverse=True) if folder.is_dir() else []:
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(found, dict):
            found["running"] = _alive(found.get("pid"))
            return found
    return None


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else
        return True
    return True


def describe(record: Mapping[str, Any] | None) -> tuple[bool, str]:
    """(ok, detail) for `rilai doctor`'s ``network`` line: ok when the session attempted
    nothing beyond the person's endpoints."""
    if record is None:
        return True, "no session recorded yet (the window, shell, chat or serve records one)"
    state = "running" if record.get("running") else "ended"
    whose = f"`rilai {record.get('label', '?')}` pid {record.get('pid')}, {state}"
    since = f"started {record.get('started', '?')}"
    allowed = int(record.get("allowed", 0))
    endpoints = f"; {allowed} to your model endpoints" if allowed else ""
    leaks = int(record.get("attempted", 0))
    if leaks == 0:
        return True, f"none attempted this session ({whose}, {since}){endpoints}"
    listed = [
        f"{a.get('host')}:{a.get('port')} at {a.get('at')} by {a.get('event')}"
        for a in record.get("attempts", [])[:5]
    ]
    more = f" and {leaks - len(listed)} more" if leaks > len(listed) else ""
    return False, f"{leaks} attempted this session ({whose}): " + "; ".join(listed) + more
