"""packaging/report.py on a fake dist/ (the bundle, its .deb and tarball), first paint
skipped: the JSON's shape and figures, and the short summary `make package` prints."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT
from tests.packaging.conftest import FAKE_VERSION, LINUX, make_fake_bundle, run_script

REPORT = REPO_ROOT / "packaging" / "report.py"
pytestmark = pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("dpkg-deb", "objdump")), reason="a Debian system"
)


def fake_dist(tmp_path: Path) -> Path:
    dist = tmp_path / "dist"
    bundle = make_fake_bundle(dist / "rilai")
    for script in ("build_deb.py", "build_tarball.py"):
        done = run_script(LINUX / script, "--bundle", str(bundle), "--out", str(dist))
        assert done.returncode == 0, done.stderr
    return dist


def test_the_report_json(tmp_path: Path) -> None:
    dist = fake_dist(tmp_path)
    written = tmp_path / "report.json"
    done = run_script(
        REPORT, "--json", "--no-first-paint", "--dist", str(dist), "--write", str(written)
    )
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    assert json.loads(written.read_text()) == r
    assert (r["version"], r["arch"]) == (FAKE_VERSION, "x86_64")
    s = r["sizes"]
    gguf = (dist / "rilai/_internal/models/tiny.gguf").stat().st_size
    with_models = s["bundle_with_models"]
    assert with_models["path"] == str(dist / "rilai") and with_models["computed"] is False
    assert with_models["bytes"] > gguf
    assert s["bundle_without_models"] == {
        "path": None,
        "bytes": with_models["bytes"] - gguf,
        "computed": True,  # the bundle less its GGUFs
    }
    assert Path(s["deb"]["path"]).name == f"rilai_{FAKE_VERSION}_amd64.deb"
    assert s["deb"]["bytes"] == Path(s["deb"]["path"]).stat().st_size
    assert Path(s["tarball"]["path"]).name == f"rilai-{FAKE_VERSION}-linux-x86_64.tar.gz"
    assert s["deb_nomodels"] is None and s["tarball_nomodels"] is None
    assert s["installed"]["bytes"] >= with_models["bytes"]
    assert "Installed-Size" in s["installed"]["from"]
    assert re.fullmatch(r"2\.\d+", r["glibc"])
    assert r["depends"] == [f"libc6 (>= {r['glibc']})"]
    assert r["first_paint"] == {"skipped": "--no-first-paint"}


def _no_models(root: Path) -> Path:
    (root / "_internal/models/tiny.gguf").unlink()
    facts = json.loads((root / "BUILD.json").read_text())
    (root / "BUILD.json").write_text(json.dumps({**facts, "models": False}))
    return root


def test_a_nomodels_build_is_measured_not_computed(tmp_path: Path) -> None:
    dist = fake_dist(tmp_path)
    nomodels = _no_models(make_fake_bundle(dist / "nomodels" / "rilai"))
    done = run_script(REPORT, "--json", "--no-first-paint", "--dist", str(dist))
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout)["sizes"]
    assert s["bundle_without_models"] == {
        "path": str(nomodels),
        "bytes": s["bundle_without_models"]["bytes"],
        "computed": False,
    }
    assert s["bundle_with_models"]["path"] == str(dist / "rilai")


def test_with_only_a_nomodels_build_the_models_are_added_from_the_manifest(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    nomodels = _no_models(make_fake_bundle(dist / "nomodels" / "rilai"))
    done = run_script(REPORT, "--json", "--no-first-paint", "--dist", str(dist))
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout)["sizes"]
    assert s["bundle_without_models"]["path"] == str(nomodels)
    assert s["bundle_with_models"] == {
        "path": None,
        "bytes": s["bundle_without_models"]["bytes"] + 65536,
        "computed": True,
    }


def test_the_summary_and_a_missing_bundle(tmp_path: Path) -> None:
    dist = fake_dist(tmp_path)
    done = run_script(REPORT, "--no-first-paint", "--dist", str(dist))
    assert done.returncode == 0, done.stderr
    assert f"Rilai {FAKE_VERSION} (x86_64), needs glibc ≥ 2." in done.stdout
    assert "deb:" in done.stdout and "first paint: skipped" in done.stdout
    done = run_script(REPORT, "--no-first-paint", "--dist", str(tmp_path / "nothing"))
    assert done.returncode != 0 and "make package" in done.stderr
