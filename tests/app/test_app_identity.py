"""The Windows AppUserModelID: claimed on Windows, nothing at all elsewhere."""

from __future__ import annotations

import sys

import pytest

from rilai_desktop.app import app_identity
from rilai_desktop.app.app_identity import APP_USER_MODEL_ID, claim_app_user_model_id


class FakeShell:
    """Stands in for shell32: records each ID it is given and answers ``result``."""

    def __init__(self, result: int = 0, error: OSError | None = None) -> None:
        self.result = result
        self.error = error
        self.claimed: list[str] = []

    def __call__(self, app_id: str) -> int:
        self.claimed.append(app_id)
        if self.error is not None:
            raise self.error
        return self.result


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux no-op")
def test_on_linux_it_is_a_no_op() -> None:
    assert app_identity.shell32_setter() is None
    assert claim_app_user_model_id() is False


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_off_windows_the_shell_is_never_called(platform: str) -> None:
    shell = FakeShell()
    assert claim_app_user_model_id(platform=platform, setter=shell) is False
    assert shell.claimed == []


def test_on_windows_rilai_claims_its_id() -> None:
    shell = FakeShell(result=0)  # S_OK
    assert claim_app_user_model_id(platform="win32", setter=shell) is True
    assert shell.claimed == ["Rilai.Desktop"] == [APP_USER_MODEL_ID]


def test_a_refused_or_failing_claim_says_false_and_does_not_raise() -> None:
    e_invalidarg = -2147024809  # 0x80070057 as a signed HRESULT
    assert claim_app_user_model_id(platform="win32", setter=FakeShell(e_invalidarg)) is False
    failing = FakeShell(error=OSError("shell32 went away"))
    assert claim_app_user_model_id(platform="win32", setter=failing) is False
    assert failing.claimed == [APP_USER_MODEL_ID]
