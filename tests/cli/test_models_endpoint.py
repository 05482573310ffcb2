"""`rilai models add NAME --endpoint URL` (issue 29): a tier on another machine, in the
user's overlay; listed as remote; a bad URL or a missing key file is refused."""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.llm.manifest import load_manifest
from rilai_desktop.paths import resolve_paths
from tests.cli_runner import Run


def test_an_endpoint_is_added_used_and_listed(run: Run, tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text("sk-local\n")
    url = "http://10.0.0.2:8080/v1/"
    added = run("models", "add", "big", "--endpoint", url, "--model", "qwen-7b",
                "--api-key-file", str(key), "--tier", "large", "--json")  # fmt: skip
    assert added.code == 0, added.err
    assert added.json() == {"model": "big", "endpoint": "http://10.0.0.2:8080/v1",
                            "served_model": "qwen-7b", "tier": "large"}  # fmt: skip
    paths = resolve_paths()
    manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    entry = manifest.for_tier("large")
    assert entry.source.kind == "endpoint" and entry.source.url == "http://10.0.0.2:8080/v1"
    assert entry.source.api_key_file == str(key.resolve())
    assert "sk-local" not in paths.user_manifest_file.read_text()  # the path, never the key
    listed = run("models", "list")
    assert "remote: http://10.0.0.2:8080/v1" in listed.out
    from types import SimpleNamespace

    from rilai_desktop.cli.commands.doctor import check_endpoints

    reached = check_endpoints(SimpleNamespace(paths=paths))  # type: ignore[arg-type]
    assert reached.detail == "the app may reach: large → http://10.0.0.2:8080/v1"


def test_a_bad_url_or_key_file_is_refused(run: Run) -> None:
    bad = run("models", "add", "big", "--endpoint", "10.0.0.2:8080")
    assert bad.code != 0 and "not an http(s) URL" in bad.err
    missing = run("models", "add", "big", "--endpoint", "http://h/v1", "--api-key-file", "/nope")
    assert missing.code != 0 and "No key file" in missing.err


def test_serve_show_token_prints_the_private_token(run: Run) -> None:
    import os
    import stat

    from rilai_desktop.api.token import token_path

    shown = run("serve", "--show-token")
    assert shown.code == 0
    path = token_path(resolve_paths().config_dir)
    assert shown.out.strip() == path.read_text().strip() and len(shown.out.strip()) >= 40
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert run("serve", "--show-token").out == shown.out  # made once, then kept
