"""Keep a PySide6 reference-count bug from killing the window (issue 30, hostile input).

Some PySide6 builds (6.12.0 measured, on CPython 3.11) return singletons without taking
a reference to them: every void Qt method (``button.setVisible(...)``, ``label.setText``)
takes one reference from ``None``, every ``Signal.emit`` one from ``True``. CPython 3.11
starts with a few thousand of each; after that many calls it aborts ("Fatal Python error:
none_dealloc" / "bool_dealloc"): the window died after ~150 turns of the hostile-input
proof (every streamed reply piece is a signal). Python 3.12+ makes these objects immortal,
so there the bug costs nothing.

:func:`guard_singletons` measures the leak with a few calls on a plain QObject and, only
where there is one, gives ``None``, ``True`` and ``False`` a reference count no session
can use up (2**40 more). They are never freed in any case; this only stops the count
reaching zero.
"""

from __future__ import annotations

import ctypes
import platform
import sys

_PROBE_CALLS = 64
_RESERVE = 1 << 40


def singleton_leaks() -> dict[str, float]:
    """References lost per call: ``None`` per void Qt call, ``True`` per signal emit."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(_PROBE_CALLS):
        probe.setObjectName("probe")
        probe.ping.emit()
    return {
        "None": max(0.0, (none_before - sys.getrefcount(None)) / _PROBE_CALLS),
        "True": max(0.0, (true_before - sys.getrefcount(True)) / _PROBE_CALLS),
    }


def guard_singletons() -> bool:
    """True when a leak was found and the singletons given their reserve."""
    if sys.version_info >= (3, 12) or platform.python_implementation() != "CPython":
        return False
    if max(singleton_leaks().values()) < 0.5:
        return False
    for singleton in (None, True, False):
        # ob_refcnt is the first field of every CPython object (Include/object.h)
        ctypes.c_ssize_t.from_address(id(singleton)).value += _RESERVE
    return True
