"""Issue 20, done-when 3: facts learned through the real engine (scripted LLM, hashed
embeddings), one paused and one pinned as a person does, `rilai memory export` then
`rilai memory import` into a fresh RILAI_HOME: `rilai memory list --json` there is the old
home's list without the paused entries (same ids, kinds, texts, categories, pins), and the
browser's entries (``engine.memory.entries()``) are the same set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.engine import Engine
from tests.cli_runner import Run
from tests.fake_engine import open_fake_engine

MESSAGES = (
    "My sister Maya lives in Lisbon.",
    "I love jazz and I hate mornings.",
    "I work as a nurse at the city hospital.",
    "My brother Tomas plays the oboe.",
)
FIELDS = ("kind", "entry_id", "text", "category", "pinned")


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _shown(entries: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    return {tuple(e[f] for f in FIELDS) for e in entries}


def _listed(run: Run) -> list[dict[str, Any]]:
    result = run("memory", "list", "--json")
    assert result.code == 0, result
    listed: list[dict[str, Any]] = result.json()
    return listed


def _browser(engine: Engine) -> set[tuple[Any, ...]]:
    return _shown([e.as_json() for e in engine.memory.entries()])


def test_export_import_into_a_fresh_home_lists_the_same_entries(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = open_fake_engine()
    try:
        for text in MESSAGES:
            engine.send(text).result(timeout=60)
        facts = engine.memory.entries("fact")
        assert len(facts) >= 3
        paused = next(f for f in facts if "Tomas" in f.text)
        pinned = next(f for f in facts if "jazz" in f.text)
        engine.memory.set_paused("fact", paused.entry_id, True)
        engine.memory.set_pinned("fact", pinned.entry_id, True)
        nurse = next(e for e in engine.memory.entries("item") if "nurse" in e.text)
        engine.memory.set_paused("item", nurse.entry_id, True)
    finally:
        engine.close()
    before = _listed(run)
    kinds = {e["kind"] for e in before}
    assert {"fact", "item"} <= kinds
    assert any(e["paused"] for e in before) and any(e["pinned"] for e in before)
    folder = tmp_path / "export"
    exported = run("memory", "export", str(folder), "--json")
    assert exported.code == 0, exported

    monkeypatch.setenv("RILAI_HOME", str(tmp_path / "fresh"))
    imported = run("memory", "import", str(folder), "--json")
    assert imported.code == 0, imported
    after = _listed(run)
    kept = [e for e in before if not e["paused"]]
    assert _shown(after) == _shown(kept)
    assert len(after) == len(kept)  # nothing twice
    assert not any(e["paused"] for e in after)
    assert {(e["kind"], e["entry_id"]) for e in after if e["pinned"]} == {("fact", pinned.entry_id)}
    assert not any(e["entry_id"] in (paused.entry_id, nurse.entry_id) for e in after)

    fresh = open_fake_engine()
    try:
        assert _browser(fresh) == _shown(after)
    finally:
        fresh.close()
