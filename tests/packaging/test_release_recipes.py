"""The Windows and macOS installer recipes and the release workflow, checked where they
cannot run (Linux, no Inno Setup, no Mac, no GitHub Actions): the workflow builds on the
three OSes and self-tests each built bundle; the Inno script carries the app's
AppUserModelID, keeps the person's data unless asked and ships the OpenMP runtime; the
plists parse and say what the app is; the spec's .app block builds what Info.plist says;
the shell scripts parse; and every path the recipes name exists."""

from __future__ import annotations

import os
import plistlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from rilai_desktop.app.app_identity import APP_USER_MODEL_ID
from rilai_desktop.paths import APP_NAME, REPO_ROOT

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "release.yml"
ISS = REPO_ROOT / "packaging" / "windows" / "rilai.iss"
MACOS = REPO_ROOT / "packaging" / "macos"
SPEC = REPO_ROOT / "packaging" / "rilai.spec"
SPEC_MAC_BLOCK = "# ── macOS: Rilai.app"
# Written on other branches of the same issue (21): checked here once they are merged.
WRITTEN_ELSEWHERE = {
    "packaging/linux": "the Linux recipes (issue 21, item 3)",
    "packaging/build.py": "the bundle build (issue 21, item 1)",
    "packaging/linux/build_deb.py": "the .deb recipe (issue 21, item 3)",
    "packaging/linux/build_tarball.py": "the tarball recipe (issue 21, item 3)",
}
OSES = {"ubuntu-22.04", "windows-latest", "macos-14"}


def load_workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(loaded, dict)
    return loaded


def build_steps() -> list[dict[str, Any]]:
    steps = load_workflow()["jobs"]["build"]["steps"]
    assert isinstance(steps, list)
    return steps


def iss_text() -> str:
    return ISS.read_text()


# ── the release workflow ──────────────────────────────────────────────────────


def test_the_workflow_runs_on_version_tags_and_by_hand() -> None:
    workflow = load_workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert triggers["push"]["tags"] == ["v*"]
    assert "workflow_dispatch" in triggers


def test_the_workflow_builds_on_the_three_oses() -> None:
    matrix = load_workflow()["jobs"]["build"]["strategy"]["matrix"]["include"]
    assert {row["os"] for row in matrix} == OSES
    for row in matrix:  # never -march=native: the runner's CPU is not the person's
        assert "-DGGML_NATIVE=OFF" in row["cmake_args"], row["os"]
    mac = next(row for row in matrix if row["os"].startswith("macos"))
    assert "-DGGML_METAL=OFF" in mac["cmake_args"]
    assert load_workflow()["env"]["PYTHON_VERSION"] == "3.11"


def test_every_os_self_tests_the_bundle_it_built_in_a_temporary_home() -> None:
    self_tests = [s for s in build_steps() if "self-test --json" in s.get("run", "")]
    bundle = [s for s in self_tests if "dist/rilai/rilai" in s["run"]]
    assert len(bundle) == 1 and "if" not in bundle[0], "the bundle's self-test runs on every OS"
    assert "dist/rilai/rilai.exe" in bundle[0]["run"]
    assert any("Rilai.app/Contents/MacOS/rilai self-test" in s["run"] for s in self_tests)
    assert any(r"rilai.exe') self-test" in s["run"] for s in self_tests)  # the installed app
    for step in self_tests:
        home = step.get("env", {}).get("RILAI_HOME", "")
        assert "runner.temp" in home or "RILAI_HOME" in step["run"], step["name"]
        # the bundle must find its own models, never the build's
        assert "RILAI_MODELS_DIR" not in step.get("env", {}), step["name"]
    workflow = load_workflow()
    assert "RILAI_MODELS_DIR" not in workflow["env"]
    assert "RILAI_MODELS_DIR" not in workflow["jobs"]["build"]["env"]


def test_each_os_makes_its_installer() -> None:
    runs = "\n".join(s.get("run", "") for s in build_steps())
    assert "packaging/linux/build_deb.py --bundle dist/rilai --out dist/" in runs
    assert "packaging/linux/build_tarball.py --bundle dist/rilai --out dist/" in runs
    assert '"/DAppVersion=$env:VERSION" packaging\\windows\\rilai.iss' in runs
    assert "packaging/macos/build_app.sh" in runs and "packaging/macos/make_dmg.sh" in runs


def test_signing_runs_only_where_the_secrets_are() -> None:
    signing = [s for s in build_steps() if "sign_and_notarize.sh" in s.get("run", "")]
    assert len(signing) == 2
    for step in signing:
        assert "env.DEVELOPER_ID != ''" in step["if"]
    text = WORKFLOW.read_text()
    assert "secrets.MACOS_DEVELOPER_ID" in text


def test_the_release_is_made_on_tags_only_with_write_permission() -> None:
    workflow = load_workflow()
    assert workflow["permissions"] == {"contents": "read"}
    release = workflow["jobs"]["release"]
    assert release["needs"] == "build"
    assert release["if"] == "github.ref_type == 'tag'"
    assert release["permissions"] == {"contents": "write"}


def named_paths() -> list[str]:
    """Repository paths the workflow and the macOS scripts name."""
    texts = [WORKFLOW.read_text(), *(p.read_text() for p in sorted(MACOS.glob("*.sh")))]
    found = set()
    for text in texts:
        for match in re.findall(r"(?<![\w/])((?:packaging|resources|tools)/[\w./-]+)", text):
            found.add(match.rstrip("./"))
        for match in re.findall(r"(?<![\w\\])((?:packaging|resources)\\[\w.\\-]+)", text):
            found.add(match.replace("\\", "/").rstrip("./"))  # a Windows step's path
    found.update(re.findall(r"hashFiles\('([^']+)'\)", WORKFLOW.read_text()))
    return sorted(found)


@pytest.mark.parametrize("path", named_paths())
def test_every_path_the_recipes_name_exists(path: str) -> None:
    if path in WRITTEN_ELSEWHERE and not (REPO_ROOT / path).exists():
        pytest.skip(f"{path} is written on another branch ({WRITTEN_ELSEWHERE[path]})")
    assert (REPO_ROOT / path).exists(), path


def test_the_workflows_pinned_pyinstaller_is_the_one_the_linux_bundle_is_built_with() -> None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("pyinstaller")
    except PackageNotFoundError:
        pytest.skip("PyInstaller is not installed here")
    assert load_workflow()["env"]["PYINSTALLER_VERSION"] == installed


# ── the Windows installer ─────────────────────────────────────────────────────


def iss_define(name: str) -> str:
    match = re.search(rf'^\s*#define {name} "([^"]*)"', iss_text(), re.M)
    assert match, name
    return match.group(1)


def iss_section(name: str) -> str:
    match = re.search(rf"^\[{name}\]\n(.*?)(?=^\[|\Z)", iss_text(), re.M | re.S)
    assert match, name
    return match.group(1)


def test_the_shortcuts_carry_the_app_user_model_id_the_app_claims() -> None:
    assert iss_define("AppUserModelID") == APP_USER_MODEL_ID == "Rilai.Desktop"
    icons = [line for line in iss_section("Icons").splitlines() if line.startswith("Name:")]
    assert any(line.startswith('Name: "{autoprograms}') for line in icons)
    for line in icons:
        assert 'AppUserModelID: "{#AppUserModelID}"' in line, line


def test_the_version_comes_from_the_command_line() -> None:
    text = iss_text()
    assert re.search(r"#ifndef AppVersion\n\s*#error", text)
    assert "AppVersion={#AppVersion}" in iss_section("Setup")


def test_the_openmp_runtime_llama_cpp_needs_is_required_in_the_bundle() -> None:
    checks = [line for line in iss_text().splitlines() if "vcomp140.dll" in line and "#if" in line]
    assert checks and all("FileExists" in line for line in checks)
    assert "#error vcomp140.dll" in iss_text()


def test_uninstall_keeps_the_data_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    code = iss_section("Code")
    assert iss_define("DataDirName") == APP_NAME
    assert "ExpandConstant('{localappdata}\\{#DataDirName}')" in code
    # the question: No is the default button and the answer of a suppressed (silent) box
    assert "MB_YESNO or MB_DEFBUTTON2, IDNO) = IDYES" in code
    assert "HasSwitch('/REMOVEDATA')" in code
    assert "DelTree(DataDir(), True, True, True)" in code
    # every folder platformdirs gives Rilai on Windows is inside that one folder
    from platformdirs.windows import Windows

    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", "C:\\Users\\p\\AppData\\Local")
    dirs = Windows(APP_NAME, appauthor=False)
    data_dir = "C:/Users/p/AppData/Local/rilai"
    for found in (dirs.user_data_dir, dirs.user_config_dir, dirs.user_cache_dir):
        assert found.replace("\\", "/").startswith(data_dir), found
    assert dirs.user_log_dir.replace("\\", "/").startswith(data_dir)


def test_the_licence_page_shows_the_licence_and_points_at_the_third_party_ones() -> None:
    setup = iss_section("Setup")
    assert "LicenseFile=..\\..\\LICENSE" in setup
    assert "licenses folder" in iss_section("Messages")


def test_every_file_the_inno_script_names_exists() -> None:
    names = re.findall(r'(?:File=|Source: ")(\.\.\\\.\.\\[^"\s]+)', iss_text())
    assert len(names) >= 3
    for name in names:
        path = (ISS.parent / name.replace("\\", "/")).resolve()
        assert path.is_file(), name


def test_the_bundle_is_read_from_where_build_py_writes_it() -> None:
    assert iss_define("BundleDir") == "..\\..\\dist\\rilai"
    assert iss_define("AppExe") == "rilai.exe"


# ── macOS ─────────────────────────────────────────────────────────────────────


def info_plist() -> dict[str, Any]:
    loaded = plistlib.loads((MACOS / "Info.plist").read_bytes())
    assert isinstance(loaded, dict)
    return loaded


def test_info_plist_says_what_the_app_is_and_asks_for_nothing() -> None:
    info = info_plist()
    assert info["CFBundleIdentifier"] == "app.rilai.desktop"
    assert info["CFBundleName"] == "Rilai"
    assert info["CFBundlePackageType"] == "APPL"
    assert info["NSHighResolutionCapable"] is True
    assert info["LSApplicationCategoryType"].startswith("public.app-category.")
    assert re.fullmatch(r"\d+\.\d+", info["LSMinimumSystemVersion"])
    # the spec's executable, and the icon BUNDLE copies in
    assert re.search(rf'name="{info["CFBundleExecutable"]}"', SPEC.read_text())
    assert (REPO_ROOT / "resources" / "icons" / info["CFBundleIconFile"]).is_file()
    for key in info:  # no network keys, no privacy permission asked
        assert not key.startswith(("NSAppTransportSecurity", "NSLocalNetwork")), key
        assert not key.endswith("UsageDescription"), key


def test_the_entitlements_parse_and_each_one_is_justified() -> None:
    raw = (MACOS / "entitlements.plist").read_text()
    entitlements = plistlib.loads(raw.encode())
    assert entitlements == {
        "com.apple.security.cs.allow-unsigned-executable-memory": True,
        "com.apple.security.cs.allow-jit": True,
    }
    assert "<key>com.apple.security.cs.disable-library-validation</key>" not in raw
    for key in entitlements:  # a comment right before each key says why
        assert re.search(rf"-->\s*<key>{re.escape(key)}</key>", raw), key


def test_the_spec_wraps_the_bundle_into_rilai_app_on_macos_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = SPEC.read_text()
    assert spec.count(SPEC_MAC_BLOCK) == 1
    block = spec[spec.index(SPEC_MAC_BLOCK) :]
    bundles: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def run_block(platform: str) -> None:
        monkeypatch.setattr(sys, "platform", platform)
        scope = {
            "ROOT": REPO_ROOT,
            "tomllib": tomllib,
            "sys": sys,
            "coll": "the COLLECT",
            "BUNDLE": lambda *a, **kw: bundles.append((a, kw)),
        }
        exec(compile(block, str(SPEC), "exec"), scope)

    run_block("linux")
    assert bundles == []
    run_block("darwin")
    ((args, kwargs),) = bundles
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert args == ("the COLLECT",)
    assert kwargs["name"] == "Rilai.app"
    assert kwargs["bundle_identifier"] == "app.rilai.desktop"
    assert kwargs["version"] == version
    assert Path(kwargs["icon"]).is_file() and kwargs["icon"].endswith(".icns")
    info = kwargs["info_plist"]
    assert info["CFBundleShortVersionString"] == info["CFBundleVersion"] == version
    versions = {"CFBundleShortVersionString", "CFBundleVersion"}
    assert {k: v for k, v in info.items() if k not in versions} == info_plist()


@pytest.mark.parametrize("script", sorted(p.name for p in MACOS.glob("*.sh")))
def test_the_macos_scripts_parse_and_are_executable(script: str) -> None:
    path = MACOS / script
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert os.access(path, os.X_OK), f"{script} is not executable"


def test_signing_uses_placeholders_and_the_hardened_runtime() -> None:
    text = (MACOS / "sign_and_notarize.sh").read_text()
    assert ': "${DEVELOPER_ID:?' in text and ': "${NOTARY_PROFILE:?' in text
    assert '--keychain-profile "$NOTARY_PROFILE" --wait' in text
    assert (
        'codesign --deep --force --options runtime --timestamp \\\n    --entitlements "$WORK/'
        'entitlements.plist" --sign "$DEVELOPER_ID"'
    ) in text
    assert 'xcrun stapler staple "$TARGET"' in text
    assert "hdiutil create -volname Rilai -srcfolder" in (MACOS / "make_dmg.sh").read_text()
