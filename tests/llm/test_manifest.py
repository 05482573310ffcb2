"""The tier → model manifest: the shipped models/models.toml and the user's overlay."""

from __future__ import annotations

import re
import stat
import tomllib
from pathlib import Path

import pytest
import tomli_w

from rilai_desktop.llm.errors import ManifestError, ModelError
from rilai_desktop.llm.manifest import (
    FALLBACK_ORDER,
    TIERS,
    ModelEntry,
    ModelSource,
    load_manifest,
    update_overlay,
)
from rilai_desktop.paths import REPO_ROOT

SHIPPED = REPO_ROOT / "models" / "models.toml"
SHIPPED_SIZES = {"small": 98362432, "medium": 491400064, "large": 1117320768}
SMALL = "smollm2-135m-instruct-q4_1"
MEDIUM = "qwen2.5-coder-0.5b-instruct-q4_k_m"
LARGE = "qwen2.5-coder-1.5b-instruct-q4_k_m"
SHA_A = "a" * 64
SHA_B = "b" * 64

BASE = f"""
[tiers]
small = "base-small"
medium = "base-medium"
large = "base-medium"

[models."base-small"]
name = "Base Small"
file = "base-small.gguf"
sha256 = "{SHA_A}"
size = 10
source = {{ kind = "package_file", packages = ["pkg==1"], parts = ["pkg/base-small.gguf"] }}

[models."base-medium"]
name = "Base Medium"
file = "base-medium.gguf"
sha256 = "{SHA_B}"
size = 20
licence = "MIT"
context_length = 4096
source = {{ kind = "package_chunks", packages = ["a==1", "b==1"], parts = ["a/p1", "b/p2"] }}
"""


@pytest.fixture
def base(tmp_path: Path) -> Path:
    path = tmp_path / "base.toml"
    path.write_text(BASE)
    return path


@pytest.fixture
def overlay(tmp_path: Path) -> Path:
    return tmp_path / "config" / "models.toml"  # not created: update_overlay makes it


def user_entry(model_id: str, path: Path, sha: str = "c" * 64) -> ModelEntry:
    return ModelEntry(
        id=model_id,
        name=f"User {model_id}",
        file=path.name,
        sha256=sha,
        size=123,
        licence="user-supplied",
        context_length=2048,
        source=ModelSource("user_file", path=str(path)),
    )


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ── the shipped manifest ─────────────────────────────────────────────────────


def test_shipped_manifest_has_three_verified_tiers() -> None:
    m = load_manifest(SHIPPED)
    assert set(m.tiers) == set(TIERS) == {"small", "medium", "large"}
    assert m.tiers == {"small": SMALL, "medium": MEDIUM, "large": LARGE}
    assert m.user_models == set()
    for tier, size in SHIPPED_SIZES.items():
        entry = m.for_tier(tier)
        assert entry.size == size
        assert entry.sha256 is not None and re.fullmatch(r"[0-9a-f]{64}", entry.sha256)
        assert entry.file.endswith(".gguf")
        assert entry.licence == "Apache-2.0"
        assert entry.source.kind in ("package_file", "package_chunks")
        assert len(entry.source.parts) == len(entry.source.packages) >= 1
        # every part lives in the package it names (module/relative/path)
        for pkg, part in zip(entry.source.packages, entry.source.parts, strict=True):
            module = pkg.split("==")[0].replace("-", "_")
            assert part.split("/")[0] == module


def test_shipped_manifest_sources() -> None:
    m = load_manifest(SHIPPED)
    assert m.for_tier("small").source.kind == "package_file"
    assert len(m.for_tier("medium").source.parts) == 6
    assert len(m.for_tier("large").source.parts) == 22
    # chunk parts are in order: part01, part02, ...
    for tier in ("medium", "large"):
        found = [re.search(r"part(\d+)\.bin$", p) for p in m.for_tier(tier).source.parts]
        numbers = [int(f[1]) for f in found if f is not None]
        assert numbers == list(range(1, len(found) + 1))


def test_shipped_manifest_with_missing_overlay_is_unchanged(tmp_path: Path) -> None:
    assert load_manifest(SHIPPED, tmp_path / "nope.toml") == load_manifest(SHIPPED)


def test_fallback_order_goes_smaller() -> None:
    assert FALLBACK_ORDER == {
        "large": ("large", "medium", "small"),
        "medium": ("medium", "small"),
        "small": ("small",),
    }


def test_path_in(tmp_path: Path) -> None:
    m = load_manifest(SHIPPED)
    small = m.for_tier("small")
    assert small.path_in(tmp_path) == tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    mine = tmp_path / "elsewhere" / "mine.gguf"
    assert user_entry("mine", mine).path_in(tmp_path / "models") == mine


# ── lookups ──────────────────────────────────────────────────────────────────


def test_for_tier_unknown_is_a_manifest_error(base: Path) -> None:
    m = load_manifest(base)
    with pytest.raises(ManifestError) as info:
        m.for_tier("huge")
    assert info.value.code == "RIL-029"
    assert "huge" in info.value.message and "small, medium, large" in info.value.message
    assert isinstance(info.value, ModelError)


def test_for_tier_unassigned_says_how_to_assign(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text(BASE.replace('large = "base-medium"\n', ""))
    m = load_manifest(base)
    with pytest.raises(ManifestError) as info:
        m.for_tier("large")
    assert "large" in info.value.message
    assert any("rilai models use large" in h for h in info.value.hints)


def test_get_unknown_lists_known_models(base: Path) -> None:
    m = load_manifest(base)
    with pytest.raises(ManifestError) as info:
        m.get("nope")
    err = info.value
    assert err.code == "RIL-029" and "'nope'" in err.message
    known = next(h for h in err.hints if h.startswith("Known models"))
    assert "base-medium" in known and "base-small" in known
    assert any("rilai models add" in h for h in err.hints)


# ── the overlay ──────────────────────────────────────────────────────────────


def test_overlay_wins_for_tiers_and_models(base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    over.write_text(
        f"""
[tiers]
small = "base-medium"

[models."base-medium"]
name = "Patched"
file = "patched.gguf"
sha256 = "{"d" * 64}"
source = {{ kind = "url", url = "https://example.invalid/patched.gguf" }}

[models."extra"]
file = "extra.gguf"
source = {{ kind = "user_file", path = "/somewhere/extra.gguf" }}
"""
    )
    m = load_manifest(base, over)
    assert m.tiers == {"small": "base-medium", "medium": "base-medium", "large": "base-medium"}
    patched = m.get("base-medium")
    assert (patched.name, patched.file, patched.size) == ("Patched", "patched.gguf", None)
    assert patched.source == ModelSource("url", url="https://example.invalid/patched.gguf")
    assert m.for_tier("small") is patched
    extra = m.get("extra")
    assert extra.name == "extra" and extra.licence == "unknown" and extra.sha256 is None
    assert m.user_models == {"base-medium", "extra"}
    assert m.get("base-small").name == "Base Small"  # untouched base entries stay


def test_overlay_over_the_shipped_manifest(tmp_path: Path) -> None:
    over = tmp_path / "models.toml"
    update_overlay(over, tiers={"large": MEDIUM})
    m = load_manifest(SHIPPED, over)
    assert m.tiers == {"small": SMALL, "medium": MEDIUM, "large": MEDIUM}
    assert m.for_tier("large") is m.for_tier("medium")
    assert m.user_models == set()


def test_to_toml_round_trips(base: Path, overlay: Path, tmp_path: Path) -> None:
    entries = [
        *load_manifest(base).models.values(),
        user_entry("mine", tmp_path / "mine.gguf"),
        ModelEntry("bare", "bare", "bare.gguf", None, None, "unknown", None, ModelSource("url")),
    ]
    for entry in entries:
        update_overlay(overlay, add=entry)
    m = load_manifest(base, overlay)
    for entry in entries:
        assert m.get(entry.id) == entry


def test_update_overlay_add_use_remove(base: Path, overlay: Path, tmp_path: Path) -> None:
    users_file = tmp_path / "downloads" / "mine.gguf"
    mine = user_entry("mine", users_file)

    update_overlay(overlay, add=mine, tiers={"small": "mine"})  # `models add --tier small`
    m = load_manifest(base, overlay)
    assert m.get("mine") == mine and m.user_models == {"mine"}
    assert m.tiers["small"] == "mine"

    update_overlay(overlay, tiers={"large": "mine", "medium": "base-small"})  # `models use`
    m = load_manifest(base, overlay)
    assert m.tiers == {"small": "mine", "medium": "base-small", "large": "mine"}

    update_overlay(overlay, remove="mine")  # `models remove`: its tier assignments go too
    m = load_manifest(base, overlay)
    assert "mine" not in m.models and m.user_models == set()
    assert m.tiers == {"small": "base-small", "medium": "base-small", "large": "base-medium"}
    raw = tomllib.loads(overlay.read_text())
    assert raw == {"tiers": {"medium": "base-small"}, "models": {}}
    assert leftovers(overlay.parent) == []


def test_update_overlay_remove_unknown_is_harmless(base: Path, overlay: Path) -> None:
    update_overlay(overlay, tiers={"small": "base-medium"})
    update_overlay(overlay, remove="never-added")
    assert load_manifest(base, overlay).tiers["small"] == "base-medium"


def test_update_overlay_keeps_unrelated_content(overlay: Path, tmp_path: Path) -> None:
    overlay.parent.mkdir(parents=True)
    overlay.write_text('[tiers]\nmedium = "x"\n\n[models.x]\nfile = "x.gguf"\nnote = "kept"\n')
    update_overlay(overlay, add=user_entry("y", tmp_path / "y.gguf"))
    raw = tomllib.loads(overlay.read_text())
    assert raw["tiers"] == {"medium": "x"}
    assert raw["models"]["x"] == {"file": "x.gguf", "note": "kept"}
    assert set(raw["models"]) == {"x", "y"}


def test_update_overlay_creates_a_private_config_dir(overlay: Path) -> None:
    assert not overlay.parent.exists()
    update_overlay(overlay, tiers={"small": "base-small"})
    assert overlay.is_file()
    assert stat.S_IMODE(overlay.parent.stat().st_mode) & 0o077 == 0


def test_update_overlay_writes_atomically(
    base: Path, overlay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    update_overlay(overlay, tiers={"small": "base-medium"})
    before = overlay.read_bytes()

    def broken_dump(data: object, fh: object) -> None:  # dies halfway through the write
        fh.write(b"[tiers]\nsmall = ")  # type: ignore[attr-defined]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tomli_w, "dump", broken_dump)
    with pytest.raises(OSError, match="No space left"):
        update_overlay(overlay, tiers={"small": "base-small"})
    assert overlay.read_bytes() == before  # the old overlay is intact, never half-written
    assert leftovers(overlay.parent) == []  # and the temporary file is gone
    assert load_manifest(base, overlay).tiers["small"] == "base-medium"


def test_update_overlay_refuses_a_malformed_overlay(overlay: Path) -> None:
    overlay.parent.mkdir(parents=True)
    overlay.write_text("[tiers\n")
    with pytest.raises(ManifestError, match=re.escape(str(overlay))):
        update_overlay(overlay, tiers={"small": "base-small"})
    assert overlay.read_text() == "[tiers\n"


# ── malformed manifests: ManifestError naming the file ───────────────────────


def _assert_names(err: ManifestError, path: Path) -> None:
    assert err.code == "RIL-029"
    assert str(path) in err.message
    assert err.context["path"] == str(path)
    assert str(err).startswith("[RIL-029] ")


def test_missing_base_manifest(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ManifestError) as info:
        load_manifest(missing)
    _assert_names(info.value, missing)


@pytest.mark.parametrize("which", ["base", "overlay"])
def test_malformed_toml(which: str, base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    bad = base if which == "base" else over
    bad.write_text('[tiers]\nsmall = "unterminated\n')
    with pytest.raises(ManifestError) as info:
        load_manifest(base, over)
    _assert_names(info.value, bad)
    assert "not valid TOML" in info.value.message


BAD_MODELS = {
    "short sha": f'file = "x.gguf"\nsha256 = "{"a" * 63}"\nsource = {{ kind = "url" }}',
    "uppercase sha": f'file = "x.gguf"\nsha256 = "{"A" * 64}"\nsource = {{ kind = "url" }}',
    "no file": 'source = { kind = "url" }',
    "no source": 'file = "x.gguf"',
    "no kind": 'file = "x.gguf"\nsource = { url = "http://x" }',
    "unknown kind": 'file = "x.gguf"\nsource = { kind = "torrent" }',
    "size not a number": 'file = "x.gguf"\nsize = "big"\nsource = { kind = "url" }',
    "source not a table": 'file = "x.gguf"\nsource = "pip"',
}


@pytest.mark.parametrize("problem", sorted(BAD_MODELS))
@pytest.mark.parametrize("which", ["base", "overlay"])
def test_malformed_model(problem: str, which: str, base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    bad = base if which == "base" else over
    text = base.read_text() if which == "base" else ""
    bad.write_text(text + '\n[models."broken"]\n' + BAD_MODELS[problem] + "\n")
    with pytest.raises(ManifestError) as info:
        load_manifest(base, over)
    _assert_names(info.value, bad)
    assert "'broken'" in info.value.message and "malformed" in info.value.message


def test_bad_sha_message_says_what_is_wrong(base: Path) -> None:
    base.write_text(BASE.replace(SHA_A, "not-a-sha"))
    with pytest.raises(ManifestError, match="64 lowercase hex") as info:
        load_manifest(base)
    _assert_names(info.value, base)


@pytest.mark.parametrize("which", ["base", "overlay"])
def test_unknown_tier(which: str, base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    if which == "base":
        base.write_text(BASE.replace("[tiers]\n", '[tiers]\nhuge = "base-small"\n'))
        bad = base
    else:
        over.write_text('[tiers]\nhuge = "base-small"\n')
        bad = over
    with pytest.raises(ManifestError) as info:
        load_manifest(base, over)
    _assert_names(info.value, bad)
    assert "'huge'" in info.value.message


@pytest.mark.parametrize("which", ["base", "overlay"])
def test_tier_naming_unknown_model(which: str, base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    if which == "base":
        base.write_text(BASE.replace('small = "base-small"', 'small = "ghost"'))
        bad = base
    else:
        over.write_text('[tiers]\nsmall = "ghost"\n')
        bad = over
    with pytest.raises(ManifestError) as info:
        load_manifest(base, over)
    _assert_names(info.value, bad)
    assert "'ghost'" in info.value.message and "small" in info.value.message
    assert any("base-medium" in h and "base-small" in h for h in info.value.hints)


def test_overlay_tier_may_name_an_overlay_model(base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    update_overlay(over, add=user_entry("mine", tmp_path / "mine.gguf"), tiers={"large": "mine"})
    assert load_manifest(base, over).for_tier("large").id == "mine"
    with pytest.raises(ManifestError):  # but the base alone does not know it
        load_manifest(base).get("mine")


@pytest.mark.parametrize("section", ["tiers", "models"])
def test_section_that_is_not_a_table(section: str, base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    over.write_text(f'{section} = "oops"\n')
    with pytest.raises(ManifestError, match=f"\\[{section}\\]") as info:
        load_manifest(base, over)
    _assert_names(info.value, over)


def test_overlay_that_is_a_directory(base: Path, tmp_path: Path) -> None:
    over = tmp_path / "over.toml"
    over.mkdir()
    with pytest.raises(ManifestError) as info:
        load_manifest(base, over)
    _assert_names(info.value, over)
