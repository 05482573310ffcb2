"""What a self-test check says: a name, ok / fail / skip, a detail, the fix, the seconds.

``timed`` runs one check and turns an unexpected exception into a failure that names it,
so one broken library cannot stop the checks after it from reporting; the traceback goes
to this module's logger at DEBUG (`rilai self-test --debug` prints it on stderr).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from rilai_desktop.errors import RilaiError

Status = Literal["ok", "fail", "skip"]
log = logging.getLogger(__name__)  # a failed check's traceback (`rilai self-test --debug`)


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: Status
    detail: str
    fix: str = ""
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def ok(name: str, detail: str) -> CheckResult:
    return CheckResult(name, "ok", detail)


def fail(name: str, detail: str, fix: str) -> CheckResult:
    return CheckResult(name, "fail", detail, fix)


def skip(name: str, detail: str) -> CheckResult:
    return CheckResult(name, "skip", detail)


def fix_of(exc: BaseException, default: str) -> str:
    """The error's own recovery hints when it has some, else ``default``."""
    if isinstance(exc, RilaiError) and exc.hints:
        return "; ".join(exc.hints)
    return default


def message_of(exc: BaseException) -> str:
    """A RilaiError's message; any other error with its type (``ImportError: ...``)."""
    if isinstance(exc, RilaiError):
        return exc.message
    return f"{type(exc).__name__}: {exc}"


def timed(name: str, check: Callable[[], CheckResult], *, fix: str) -> CheckResult:
    """Run ``check`` and stamp its seconds; an exception it lets through is a failure of
    ``name`` with ``fix`` (or the error's own hints)."""
    t0 = time.perf_counter()
    try:
        result = check()
    except Exception as exc:
        log.debug("self-test check %s failed", name, exc_info=True)
        result = fail(name, message_of(exc), fix_of(exc, fix))
    return replace(result, seconds=round(time.perf_counter() - t0, 3))


@dataclass(frozen=True)
class SelfTestReport:
    frozen: bool
    install: Mapping[str, Any]
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "fail" for c in self.checks) and any(
            c.status == "ok" for c in self.checks
        )

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.status == "fail"]

    @property
    def seconds(self) -> float:
        return round(sum(c.seconds for c in self.checks), 3)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "frozen": self.frozen,
            "install": dict(self.install),
            "seconds": self.seconds,
            "checks": [c.as_dict() for c in self.checks],
        }

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1
