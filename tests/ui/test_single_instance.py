"""One running instance per data directory: a second hands over to the first; a lock left by
a dead process is taken over."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.single_instance import (
    ALREADY_RUNNING,
    KEY_ENV,
    Claim,
    SingleInstance,
    decode_request,
    default_key,
    encode_request,
)


@pytest.fixture
def key() -> str:
    return f"rilai-test-{uuid.uuid4().hex[:12]}"


def test_a_second_instance_hands_over_and_the_first_raises(
    qtbot: QtBot, tmp_path: Path, key: str
) -> None:
    first = SingleInstance(tmp_path, key)
    assert first.claim() is Claim.PRIMARY
    assert first.is_primary
    second = SingleInstance(tmp_path, key)
    try:
        with qtbot.waitSignal(first.raise_requested) as raised:
            assert second.claim(["rilai", "window"]) is Claim.HANDED_OVER
        assert raised.args == [["rilai", "window"]]
        assert second.message == ALREADY_RUNNING
        assert not second.is_primary
        # the first still holds the lock and still listens: a third hands over too
        with qtbot.waitSignal(first.raise_requested):
            assert SingleInstance(tmp_path, key).claim() is Claim.HANDED_OVER
    finally:
        second.release()
        first.release()


def test_after_the_first_quits_the_next_one_becomes_primary(tmp_path: Path, key: str) -> None:
    first = SingleInstance(tmp_path, key)
    assert first.claim() is Claim.PRIMARY
    first.release()
    again = SingleInstance(tmp_path, key)
    assert again.claim() is Claim.PRIMARY
    again.release()


def test_a_held_lock_with_nobody_listening_is_not_taken(tmp_path: Path, key: str) -> None:
    """The holder may be starting up (or hung): the second never steals its server name."""
    first = SingleInstance(tmp_path, key)
    assert first._lock.tryLock(0)  # the lock without the server yet
    second = SingleInstance(tmp_path, key)
    assert second.claim() is Claim.NOT_ANSWERING
    assert str(second.lock_path) in second.message
    first.release()


CRASH = """
import os, sys
from PySide6.QtCore import QLockFile
lock = QLockFile(sys.argv[1])
assert lock.tryLock(0)
print(os.getpid(), flush=True)
os._exit(0)  # dies holding it: the lock file stays behind
"""


def test_a_stale_lock_from_a_dead_process_is_taken_over(tmp_path: Path, key: str) -> None:
    lock_file = tmp_path / "window.lock"
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(lock_file)], capture_output=True, text=True, check=True
    )
    assert lock_file.read_text().startswith(done.stdout.strip())
    instance = SingleInstance(tmp_path, key)
    assert instance.claim() is Claim.PRIMARY
    instance.release()


def test_the_key_comes_from_the_argument_the_env_or_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SingleInstance(tmp_path, "given").key == "given"
    monkeypatch.setenv(KEY_ENV, "from-env")
    assert SingleInstance(tmp_path).key == "from-env"
    monkeypatch.delenv(KEY_ENV)
    assert SingleInstance(tmp_path).key == default_key(tmp_path)
    assert default_key(tmp_path) != default_key(tmp_path / "other")


def test_requests_round_trip_and_junk_is_ignored() -> None:
    assert decode_request(encode_request(["rilai", "--x"])) == ["rilai", "--x"]
    assert decode_request(b"raise\n") == []
    assert decode_request(b"raise {not json\n") == []
    assert decode_request(b"hello\n") is None
