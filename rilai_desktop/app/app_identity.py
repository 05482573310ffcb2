"""Rilai's name in the Windows shell: the AppUserModelID ``Rilai.Desktop``.

Windows groups taskbar buttons and names notifications by a process's AppUserModelID.
The installer's Start-menu shortcut carries this same ID (``AppUserModelID:`` in
packaging/windows/rilai.iss), so Windows matches the running app to the shortcut and a
check-in notification reads "Rilai" with Rilai's icon, not "rilai.exe" (or "Python" from a
checkout). The process has to claim the ID before it shows a window: ``rilai window``
calls :func:`claim_app_user_model_id` first thing.

Qt-free, and nothing happens off Windows. The shell call is a keyword argument with the
real one as its default, so tests pass their own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Final

APP_USER_MODEL_ID: Final = "Rilai.Desktop"
S_OK: Final = 0

# shell32's SetCurrentProcessExplicitAppUserModelID: takes the ID, returns an HRESULT
SetAppId = Callable[[str], int]


def shell32_setter() -> SetAppId | None:
    """shell32's SetCurrentProcessExplicitAppUserModelID; None off Windows or without it."""
    if sys.platform != "win32":
        return None
    import ctypes

    try:
        function = ctypes.windll.shell32.SetCurrentProcessExplicitAppUserModelID
    except (AttributeError, OSError):
        return None
    function.argtypes = [ctypes.c_wchar_p]
    function.restype = ctypes.c_long  # the HRESULT as a number (not ctypes.HRESULT: no raise)

    def set_app_id(app_id: str) -> int:
        return int(function(app_id))

    return set_app_id


def claim_app_user_model_id(
    app_id: str = APP_USER_MODEL_ID,
    *,
    platform: str = sys.platform,
    setter: SetAppId | None = None,
) -> bool:
    """Claim ``app_id`` for this process; True when Windows took it. Off Windows this does
    nothing and returns False (``setter`` is not called)."""
    if platform != "win32":
        return False
    set_app_id = setter if setter is not None else shell32_setter()
    if set_app_id is None:
        return False
    try:
        return set_app_id(app_id) == S_OK
    except OSError:
        return False
