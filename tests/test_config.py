"""Settings: defaults < settings.toml < RILAI_* environment < CLI, with the source of each."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from rilai_desktop.config import (
    LoadedSettings,
    Settings,
    env_overrides,
    flatten,
    load_settings,
    read_settings_file,
    set_in_file,
    setting_keys,
)
from rilai_desktop.errors import ConfigError
from rilai_desktop.paths import resolve_paths

EXPECTED_KEYS = {
    "log_level",
    "llm.threads",
    "llm.batch_threads",
    "llm.voice_threads",
    "llm.agent_workers",
    "llm.n_ctx",
    "llm.gpu_layers",
    "llm.chat_template_fallback",
    "llm.fallback",
    "roles.agents",
    "roles.council",
    "roles.voice",
    "roles.escalation",
    "roles.extraction",
    "roles.consolidation",
    "roles.safety_check",
    "roles.reader",
    "agents.enabled",
    "agents.readings",
    "api.enabled",
    "api.port",
    "safety.model_check",
    "embedding.torch_threads",
    "embedding.backend",
    "memory.exact_index_max",
    "memory.extract",
    "memory.consolidation_interval",
    "memory.dedupe_similarity",
    "memory.llm_candidates",
    "memory.journal_retention_days",
    "memory.paused",
    "daemon.tick_seconds",
    "daemon.modulator_half_life_minutes",
    "daemon.stance_half_life_minutes",
    "daemon.maintenance_hours",
    "daemon.backups_keep",
    "daemon.resource_retention_days",
    "nudges.enabled",
    "nudges.per_hour",
    "nudges.per_day",
    "nudges.quiet_start",
    "nudges.quiet_end",
    "nudges.cooldown_hours",
    "ui.theme",
    "ui.close_to_tray",
    "ui.quiet_mode",
}


@pytest.fixture
def settings_file(rilai_home: Path) -> Path:
    path = resolve_paths().settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_setting_keys_are_dotted_names() -> None:
    assert set(setting_keys()) == EXPECTED_KEYS


def test_defaults_when_nothing_is_set(settings_file: Path) -> None:
    loaded = load_settings(settings_file, env={})
    assert isinstance(loaded, LoadedSettings)
    assert loaded.settings == Settings()
    assert loaded.settings.llm.threads == 1
    assert loaded.settings.ui.theme == "system"
    assert loaded.sources == dict.fromkeys(EXPECTED_KEYS, "default")
    assert not settings_file.exists(), "loading never creates the file"


def test_file_overrides_defaults(settings_file: Path) -> None:
    write(settings_file, 'log_level = "debug"\n[llm]\nthreads = 2\n')
    loaded = load_settings(settings_file, env={})
    assert loaded.settings.log_level == "debug"
    assert loaded.settings.llm.threads == 2
    assert loaded.settings.llm.n_ctx == 4096
    assert loaded.sources["log_level"] == "file"
    assert loaded.sources["llm.threads"] == "file"
    assert loaded.sources["llm.n_ctx"] == "default"


def test_precedence_default_file_env_cli(settings_file: Path) -> None:
    write(settings_file, "[llm]\nthreads = 2\nn_ctx = 2048\ngpu_layers = 5\n")
    env = {"RILAI_LLM__THREADS": "3", "RILAI_LLM__N_CTX": "1024", "PATH": "/usr/bin"}
    loaded = load_settings(settings_file, env=env, cli={"llm.threads": "4"})
    s = loaded.settings
    assert (s.llm.threads, s.llm.n_ctx, s.llm.gpu_layers, s.daemon.tick_seconds) == (
        4,
        1024,
        5,
        60,
    )
    assert loaded.sources["llm.threads"] == "cli"
    assert loaded.sources["llm.n_ctx"] == "env"
    assert loaded.sources["llm.gpu_layers"] == "file"
    assert loaded.sources["daemon.tick_seconds"] == "default"


def test_env_overrides_file(settings_file: Path) -> None:
    write(settings_file, "[llm]\nthreads = 2\n")
    loaded = load_settings(settings_file, env={"RILAI_LLM__THREADS": "3"})
    assert loaded.settings.llm.threads == 3
    assert loaded.sources["llm.threads"] == "env"


def test_os_environ_is_the_default_env(
    settings_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RILAI_LLM__THREADS", "3")
    monkeypatch.setenv("RILAI_UI__THEME", "dark")
    loaded = load_settings(settings_file)
    assert loaded.settings.llm.threads == 3
    assert loaded.settings.ui.theme == "dark"
    assert loaded.sources["ui.theme"] == "env"


def test_top_level_env_key_and_non_settings_are_ignored(settings_file: Path) -> None:
    env = {"RILAI_LOG_LEVEL": "warning", "RILAI_HOME": "/x", "RILAI_DEBUG": "1"}
    assert env_overrides(env) == {"log_level": "warning"}
    loaded = load_settings(settings_file, env=env)
    assert loaded.settings.log_level == "warning"
    assert loaded.sources["log_level"] == "env"


def test_cli_overrides_everything(settings_file: Path) -> None:
    write(settings_file, 'log_level = "debug"\n')
    loaded = load_settings(
        settings_file,
        env={"RILAI_LOG_LEVEL": "warning"},
        cli={"log_level": "error", "daemon.tick_seconds": 5},
    )
    assert loaded.settings.log_level == "error"
    assert loaded.settings.daemon.tick_seconds == 5
    assert loaded.sources["log_level"] == "cli"
    assert loaded.sources["daemon.tick_seconds"] == "cli"


def test_loaded_settings_are_frozen(settings_file: Path) -> None:
    loaded = load_settings(settings_file, env={})
    with pytest.raises(ValidationError):
        loaded.sources = {}  # type: ignore[misc]


# ── errors ───────────────────────────────────────────────────────────────────


def test_invalid_toml_names_the_file(settings_file: Path) -> None:
    write(settings_file, "[llm\nthreads = = 2\n")
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env={})
    exc = info.value
    assert exc.code == "RIL-001"
    assert str(settings_file) in exc.message
    assert "TOML" in exc.message
    assert exc.context["path"] == str(settings_file)
    assert exc.recovery_suggestions


def test_read_settings_file_missing_is_empty(tmp_path: Path) -> None:
    assert read_settings_file(tmp_path / "absent.toml") == {}


def _assert_lists_known_keys(exc: ConfigError) -> None:
    hints = " ".join(exc.recovery_suggestions)
    for key in EXPECTED_KEYS:
        assert key in hints, f"{key} missing from hints: {hints}"


def test_unknown_key_in_file(settings_file: Path) -> None:
    write(settings_file, "[llm]\nthreadz = 2\n")
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env={})
    assert "llm.threadz" in info.value.message
    assert "file" in info.value.message
    assert info.value.context == {"key": "llm.threadz", "source": "file"}
    _assert_lists_known_keys(info.value)


def test_unknown_section_in_file(settings_file: Path) -> None:
    write(settings_file, "[gpu]\nenabled = true\n")
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env={})
    assert "gpu.enabled" in info.value.message
    _assert_lists_known_keys(info.value)


def test_unknown_key_in_env(settings_file: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env={"RILAI_LLM__BOGUS": "1"})
    assert "RILAI_LLM__BOGUS" in info.value.message
    assert info.value.context["variable"] == "RILAI_LLM__BOGUS"
    _assert_lists_known_keys(info.value)


def test_unknown_key_in_cli(settings_file: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env={}, cli={"bogus": "1"})
    assert "'bogus'" in info.value.message
    assert "cli" in info.value.message
    assert info.value.context == {"key": "bogus", "source": "cli"}
    _assert_lists_known_keys(info.value)


@pytest.mark.parametrize(
    ("where", "expected_source"),
    [("file", "file"), ("env", "env"), ("cli", "cli")],
)
def test_out_of_range_value_names_key_and_source(
    settings_file: Path, where: str, expected_source: str
) -> None:
    env: dict[str, str] = {}
    cli: dict[str, str] = {}
    if where == "file":
        write(settings_file, "[llm]\nthreads = 0\n")
    elif where == "env":
        env["RILAI_LLM__THREADS"] = "0"
    else:
        cli["llm.threads"] = "0"
    with pytest.raises(ConfigError) as info:
        load_settings(settings_file, env=env, cli=cli)
    exc = info.value
    assert exc.code == "RIL-001"
    assert "llm.threads" in exc.message
    assert f"(from {expected_source})" in exc.message
    assert exc.context["key"] == "llm.threads"


def test_wrong_type_and_bad_choice(settings_file: Path) -> None:
    with pytest.raises(ConfigError, match=r"llm\.n_ctx"):
        load_settings(settings_file, env={"RILAI_LLM__N_CTX": "lots"})
    with pytest.raises(ConfigError, match=r"ui\.theme.*\(from cli\)"):
        load_settings(settings_file, env={}, cli={"ui.theme": "neon"})


# ── set_in_file ──────────────────────────────────────────────────────────────


def test_set_in_file_coerces_writes_and_is_seen_by_the_next_load(settings_file: Path) -> None:
    value = set_in_file(settings_file, "llm.threads", "2")
    assert value == 2
    assert isinstance(value, int)
    with settings_file.open("rb") as fh:
        assert tomllib.load(fh) == {"llm": {"threads": 2}}
    loaded = load_settings(settings_file, env={})
    assert loaded.settings.llm.threads == 2
    assert loaded.sources["llm.threads"] == "file"


def test_set_in_file_creates_the_config_dir(tmp_path: Path) -> None:
    target = tmp_path / "fresh" / "config" / "settings.toml"
    set_in_file(target, "ui.theme", "dark")
    assert target.is_file()
    assert not target.with_suffix(".toml.tmp").exists(), "the temporary file is renamed away"


def test_set_in_file_keeps_other_settings(settings_file: Path) -> None:
    write(settings_file, 'log_level = "debug"\n[llm]\nn_ctx = 2048\n')
    set_in_file(settings_file, "llm.threads", "3")
    set_in_file(settings_file, "daemon.tick_seconds", "30")
    tree = read_settings_file(settings_file)
    assert flatten(tree) == {
        "log_level": "debug",
        "llm.n_ctx": 2048,
        "llm.threads": 3,
        "daemon.tick_seconds": 30,
    }


def test_set_in_file_overwrites_a_previous_value(settings_file: Path) -> None:
    set_in_file(settings_file, "llm.threads", "2")
    set_in_file(settings_file, "llm.threads", "5")
    assert load_settings(settings_file, env={}).settings.llm.threads == 5


def test_set_in_file_is_atomic_replace(
    settings_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new content is written to a temporary file and renamed over settings.toml."""
    write(settings_file, "[llm]\nthreads = 2\n")
    replaced: list[tuple[Path, Path]] = []
    original = Path.replace

    def spy(self: Path, target: Path) -> Path:
        replaced.append((self, Path(target)))
        return original(self, target)

    monkeypatch.setattr(Path, "replace", spy)
    set_in_file(settings_file, "llm.threads", "3")
    assert len(replaced) == 1
    tmp, target = replaced[0]
    assert target == settings_file
    assert tmp != settings_file
    assert tmp.parent == settings_file.parent, "same directory, so the rename is atomic"
    assert not tmp.exists()


@pytest.mark.parametrize(
    ("key", "raw"),
    [
        ("llm.bogus", "2"),
        ("bogus", "2"),
        ("llm", "2"),
        ("llm.threads", "0"),
        ("llm.threads", "many"),
        ("ui.theme", "neon"),
        ("log_level", "loud"),
    ],
)
def test_set_in_file_rejects_and_leaves_the_file_unchanged(
    settings_file: Path, key: str, raw: str
) -> None:
    write(settings_file, '# my settings\nlog_level = "debug"\n\n[llm]\nthreads = 2\n')
    before = settings_file.read_bytes()
    with pytest.raises(ConfigError) as info:
        set_in_file(settings_file, key, raw)
    assert info.value.code == "RIL-001"
    assert key in info.value.message
    assert settings_file.read_bytes() == before
    assert not settings_file.with_suffix(".toml.tmp").exists()


def test_set_in_file_unknown_key_lists_known_keys(settings_file: Path) -> None:
    with pytest.raises(ConfigError) as info:
        set_in_file(settings_file, "llm.bogus", "1")
    _assert_lists_known_keys(info.value)
    assert not settings_file.exists(), "a rejected set creates nothing"


def test_set_in_file_refuses_to_touch_invalid_toml(settings_file: Path) -> None:
    write(settings_file, "this is = = not toml\n")
    before = settings_file.read_bytes()
    with pytest.raises(ConfigError, match="not valid TOML"):
        set_in_file(settings_file, "llm.threads", "2")
    assert settings_file.read_bytes() == before
