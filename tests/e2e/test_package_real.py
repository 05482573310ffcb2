"""The REAL Linux artefacts `make package` built (the .deb and the .tar.gz, from RILAI_DIST or
dist/), installed the ways a person would and run with no network:

- the .deb unpacked into a temporary root (``dpkg -x``) and the tarball installed with its
  ``install.sh --prefix`` into a temporary folder each run ``rilai self-test --json`` (a real
  turn on the bundled models) inside ``unshare -n`` (a network namespace with no network),
  with RILAI_HOME and HOME in temporary folders and no RILAI_MODELS_DIR: exit 0, every
  check ok, and nothing written outside that HOME but under RILAI_HOME (no Hugging Face or
  torch cache: nothing was fetched, or even looked for);
- the bundle carries the licences of what it ships (the models', llama.cpp's, Qt's, …);
- the frozen app shows its window under Xvfb: found by xdotool, photographed from outside
  (tools/x_screenshot.py; the PNG goes to RILAI_TEST_ARTIFACTS or the test's tmp folder,
  and its path is printed), not blank, and Ctrl+Q quits it with exit 0.

Building the artefacts takes many minutes: with RILAI_PACKAGE_BUILD=1 the test runs
`make package` when they are missing; otherwise it skips and says so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# read at import: the autouse rilai_home fixture clears every RILAI_* variable
DIST = Path(os.environ.get("RILAI_DIST") or REPO_ROOT / "dist").resolve()
BUILD = os.environ.get("RILAI_PACKAGE_BUILD") == "1"
# `make package-test` (and so `make test`) sets it: missing artefacts are a failure there
REQUIRED = os.environ.get("RILAI_PACKAGE_REQUIRED") == "1"
ARTIFACTS = os.environ.get("RILAI_TEST_ARTIFACTS")
SELF_TEST_TIMEOUT_S = 900


def _find(pattern: str) -> Path | None:
    for folder in (DIST, DIST / "nomodels"):
        found = sorted(folder.glob(pattern)) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def _artefacts() -> tuple[Path, Path]:
    deb, tarball = _find("rilai_*.deb"), _find("rilai-*-linux-*.tar.gz")
    if (deb is None or tarball is None) and BUILD:
        subprocess.run(["make", "package"], cwd=REPO_ROOT, check=True)
        deb, tarball = _find("rilai_*.deb"), _find("rilai-*-linux-*.tar.gz")
    if (deb is None or tarball is None) and REQUIRED:
        pytest.fail(f"no .deb and .tar.gz in {DIST}: `make package` did not produce them")
    if deb is None or tarball is None:
        pytest.skip(
            f"no .deb and .tar.gz in {DIST}: build them with `make package` (minutes), or run "
            "with RILAI_PACKAGE_BUILD=1 to let this test build them (RILAI_DIST=DIR to point "
            "elsewhere)"
        )
    return deb, tarball


@pytest.fixture(scope="module")
def deb_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    deb, _ = _artefacts()
    root = tmp_path_factory.mktemp("deb-root")
    subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)  # ~3 GB: pytest keeps its last three tmp dirs


@pytest.fixture(scope="module")
def tar_unpacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tarball unpacked: its one folder, which runs as it is."""
    _, tarball = _artefacts()
    unpacked = tmp_path_factory.mktemp("tar-unpacked")
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(unpacked)], check=True)
    (folder,) = list(unpacked.iterdir())
    yield folder
    shutil.rmtree(unpacked, ignore_errors=True)


@pytest.fixture(scope="module")
def tar_install(tar_unpacked: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The unpacked tarball installed with its install.sh --prefix: the installed app."""
    prefix = tmp_path_factory.mktemp("tar-prefix")
    done = subprocess.run(
        [str(tar_unpacked / "install.sh"), "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert os.readlink(prefix / "bin/rilai") == str(prefix / "opt/rilai/rilai")
    yield prefix / "opt" / "rilai"
    shutil.rmtree(prefix, ignore_errors=True)


INSTALLS = ["deb", "tarball", "tarball-installed"]


@pytest.fixture(params=INSTALLS)
def app(request: pytest.FixtureRequest) -> Path:
    """Each installation: the .deb's /opt/rilai in a dpkg -x root, the unpacked tarball,
    and the tarball installed by install.sh (its bin/rilai link is what a person runs)."""
    if request.param == "deb":
        return Path(request.getfixturevalue("deb_root")) / "opt/rilai"
    if request.param == "tarball":
        return Path(request.getfixturevalue("tar_unpacked"))
    return Path(request.getfixturevalue("tar_install"))


def _has_models(app: Path) -> bool:
    facts = app / "BUILD.json"
    if facts.is_file():
        return bool(json.loads(facts.read_text()).get("models"))
    return any(app.rglob("*.gguf"))


def _offline_env(home: Path) -> dict[str, str]:
    """A person's environment, minus everything that could point the app at our files: no
    RILAI_* (the Makefile exports RILAI_MODELS_DIR), no caches of ours, HOME a temp folder."""
    drop = ("RILAI_", "HF_", "TRANSFORMERS_", "TORCH_", "XDG_", "SENTENCE_TRANSFORMERS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("PYTHONPATH", None)
    env.update(HOME=str(home), RILAI_HOME=str(home / "rilai-home"))
    return env


def _written_outside_rilai_home(home: Path) -> list[str]:
    return sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file() and not p.is_relative_to(home / "rilai-home")
    )


def _failed_checks(report: dict[str, object]) -> list[object]:
    checks = report.get("checks", [])
    assert isinstance(checks, list) and checks, report
    return [
        c
        for c in checks
        if not (isinstance(c, dict) and (c.get("status") == "ok" or c.get("ok") is True))
    ]


def _offline(
    app: Path, *argv: str, home: Path, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = app / "rilai"
    if app.parent.name == "opt" and (app.parent.parent / "bin/rilai").is_symlink():
        command = app.parent.parent / "bin/rilai"  # install.sh's link, as a person runs it
    return subprocess.run(
        ["unshare", "-n", "--", str(command), *argv],
        env={**_offline_env(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=home,
    )


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_status_runs_offline(app: Path, tmp_path: Path) -> None:
    """The frozen app starts and finds its own files with no network (any bundle)."""
    home = tmp_path / "home"
    home.mkdir()
    done = _offline(app, "status", "--json", home=home, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    status = json.loads(done.stdout)
    assert status["paths"]["data_dir"].startswith(str(home / "rilai-home"))
    assert _written_outside_rilai_home(home) == []


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_self_test_passes_offline(app: Path, tmp_path: Path) -> None:
    if not _has_models(app):
        pytest.skip(f"{app} is a bundle without models: self-test's real turn needs them")
    home = tmp_path / "home"
    home.mkdir()
    done = _offline(app, "self-test", "--json", home=home, timeout=SELF_TEST_TIMEOUT_S)
    if done.returncode == 2 and "invalid choice: 'self-test'" in done.stderr:
        pytest.skip("this bundle predates `rilai self-test`: rebuild it with `make package`")
    print(done.stdout[-4000:])
    report = json.loads(done.stdout)
    assert done.returncode == 0, (report, done.stderr[-3000:])
    assert _failed_checks(report) == []
    # nothing fetched, nor any download cache even made: all of it is under RILAI_HOME
    assert _written_outside_rilai_home(home) == []


def _check(report: dict[str, object], name: str) -> dict[str, object]:
    checks = report.get("checks", [])
    assert isinstance(checks, list)
    found = next(c for c in checks if isinstance(c, dict) and c.get("name") == name)
    return dict(found)


def _uses_avx512(library: Path) -> bool:
    """Whether the machine code of ``library`` touches AVX-512 registers (zmm)."""
    code = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(library)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return re.search(r"%zmm\d", code) is not None


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_the_default_llama_build_runs_on_any_avx2_cpu(deb_root: Path) -> None:
    """The checkout's llama.cpp is -march=native; the bundle's default must not be: built on
    an AVX-512 machine, a native build dies with SIGILL on most laptops."""
    internal = deb_root / "opt/rilai/_internal"
    default = internal / "llama_cpp/lib/libggml-cpu.so"
    assert default.is_file()
    assert not _uses_avx512(default)
    for top in internal.glob("libggml-cpu.so*"):  # PyInstaller's copy beside the others
        assert not _uses_avx512(top), top
    faster = internal / "llama_cpp/lib-avx512/libggml-cpu.so"
    assert faster.is_file() and _uses_avx512(faster)


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_the_bundle_picks_the_llama_build_this_cpu_runs(deb_root: Path, tmp_path: Path) -> None:
    from rilai_desktop.llm.cpu_level import best_level, cpu_flags

    app = deb_root / "opt/rilai"
    if not _has_models(app):
        pytest.skip(f"{app} is a bundle without models: the model smoke needs them")
    home = tmp_path / "home"
    home.mkdir()
    level = best_level(cpu_flags(Path("/proc/cpuinfo").read_text()))
    done = _offline(app, "self-test", "--json", home=home, timeout=SELF_TEST_TIMEOUT_S)
    lib = str(_check(json.loads(done.stdout), "lib:llama_cpp")["detail"])
    assert ("lib-avx512" in lib) == (level == "avx512"), lib
    # and the AVX2 build, forced, answers too (what a laptop without AVX-512 runs)
    forced = {"LLAMA_CPP_LIB_PATH": str(app / "_internal/llama_cpp/lib")}
    done = _offline(app, "self-test", "--json", home=home, timeout=SELF_TEST_TIMEOUT_S, env=forced)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and _failed_checks(report) == [], report
    lib = str(_check(report, "lib:llama_cpp")["detail"])
    assert "lib-avx512" not in lib and "AVX512" not in lib, lib


LIBRARY_LICENCES = (
    (r"llama", r"\bMIT\b"),
    (r"pyside|\bqt", r"LGPL|Lesser General Public"),
    (r"onnxruntime", r"\bMIT\b|Permission is hereby granted"),
    (r"tokenizers", r"Apache"),
    (r"faiss", r"\bMIT\b|Permission is hereby granted"),
    (r"minilm", r"Apache"),
)


def test_the_bundle_embeds_without_torch(deb_root: Path) -> None:
    """Issue 31: the bundle embeds with the ONNX export on onnxruntime; the torch stack
    (~0.6 GB of the .deb before) is not inside, and the self-test's embedder is the ONNX one."""
    internal = deb_root / "opt/rilai/_internal"
    onnx = internal / "rilai_desktop/memory/minilm_onnx"
    assert (onnx / "model.onnx").is_file() and (onnx / "embedding.json").is_file()
    assert (internal / "onnxruntime").is_dir()
    carried = [
        name
        for name in ("torch", "sentence_transformers", "transformers", "scipy", "sklearn")
        if (internal / name).exists()
    ]
    assert carried == [], f"the bundle still carries {carried}"


def _licence_texts(app: Path) -> list[tuple[str, str]]:
    folder = app / "licenses"
    assert folder.is_dir(), f"{folder} is missing: packaging/build.py writes it"
    texts = [
        (str(p.relative_to(folder)).lower(), p.read_text(errors="replace"))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    ]
    assert texts, f"{folder} is empty"
    return texts


def _names_licence(texts: list[tuple[str, str]], component: str, licence: str) -> bool:
    """Some file names ``component`` (in its path or its opening) and ``licence``."""
    for path, text in texts:
        if re.search(component, path + "\n" + text[:3000], re.I) and re.search(licence, text):
            return True
    return False


def test_the_bundle_carries_the_licences_of_what_it_ships(deb_root: Path) -> None:
    import tomllib

    app = deb_root / "opt/rilai"
    texts = _licence_texts(app)
    missing = [c for c, lic in LIBRARY_LICENCES if not _names_licence(texts, c, lic)]
    if _has_models(app):
        manifest = tomllib.loads((app / "_internal/models/models.toml").read_text())
        for model_id in set(manifest["tiers"].values()):
            entry = manifest["models"][model_id]
            name = re.escape(entry["name"].split()[0].split("-")[0])  # "SmolLM2", "Qwen2.5"
            if not _names_licence(texts, name, re.escape(entry["licence"])):
                missing.append(f"{model_id} ({entry['licence']})")
    assert missing == [], f"licences not found in {app / 'licenses'}: {missing}"


# ── the window ────────────────────────────────────────────────────────────────


def _xdotool(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def xvfb() -> Iterator[str]:
    n = next(
        n
        for n in range(150, 250)
        if not Path(f"/tmp/.X{n}-lock").exists() and not Path(f"/tmp/.X11-unix/X{n}").exists()
    )
    server = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    end = time.monotonic() + 20
    while not Path(f"/tmp/.X11-unix/X{n}").exists():
        assert server.poll() is None and time.monotonic() < end, "Xvfb did not start"
        time.sleep(0.05)
    yield f":{n}"
    server.terminate()
    server.wait(timeout=10)


@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("Xvfb", "xdotool", "unshare")),
    reason="needs Xvfb, xdotool and unshare (make test installs them)",
)
def test_the_frozen_app_shows_its_window(deb_root: Path, xvfb: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**_offline_env(home), "DISPLAY": xvfb}
    log = (tmp_path / "window.log").open("w")
    # offline too: the X server is reached through its socket file
    app = subprocess.Popen(
        ["unshare", "-n", "--", str(deb_root / "opt/rilai/rilai"), "window"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=home,
    )
    x_env = {**os.environ, "DISPLAY": xvfb}
    try:
        found = subprocess.run(
            ["xdotool", "search", "--sync", "--onlyvisible", "--name", "Rilai"],
            env=x_env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert found.returncode == 0, (tmp_path / "window.log").read_text()[-3000:]
        wid = found.stdout.split()[0]
        by_class = subprocess.run(
            ["xdotool", "search", "--class", "^Rilai$"], env=x_env, capture_output=True, text=True
        )
        assert wid in by_class.stdout.split()  # WM_CLASS "Rilai": the .desktop StartupWMClass
        time.sleep(2.0)  # the first paint and the dock layout after it
        out = Path(ARTIFACTS or tmp_path).resolve() / "frozen-window.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        shot = subprocess.run(
            [sys.executable, str(REPO_ROOT / "tools" / "x_screenshot.py"), xvfb, str(out)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        grabbed = json.loads(shot.stdout)
        print(f"\nthe frozen app's window: {out} ({grabbed['distinct_colours']} colours)")
        assert grabbed["distinct_colours"] > 20, grabbed  # a window, not an empty screen
        subprocess.run(["xdotool", "windowraise", wid], env=x_env, timeout=10)
        subprocess.run(["xdotool", "windowfocus", "--sync", wid], env=x_env, timeout=10)
        time.sleep(0.3)
        subprocess.run(["xdotool", "key", "ctrl+q"], env=x_env, timeout=10)
        assert app.wait(timeout=60) == 0, (tmp_path / "window.log").read_text()[-3000:]
    finally:
        if app.poll() is None:
            app.kill()
        log.close()
