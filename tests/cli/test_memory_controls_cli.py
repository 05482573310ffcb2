"""`rilai memory list|show|edit|delete|pause|pin|forget-all|paused` (issue 20), in-process
through tests/cli_runner.py on the real memory (the hashed embedder)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.test_memory_cli import (  # noqa: F401 (fixtures)
    hash_embedder,
    ingested,
    item_id_for,
    search,
)
from tests.cli_runner import Run

pytestmark = pytest.mark.usefixtures("ingested")  # the transcript of test_memory_cli


def _json(run: Run, *argv: str) -> Any:
    result = run("memory", *argv, "--json")
    assert result.code == 0, result
    return result.json()


def test_list_show_edit_pause_pin_delete(run: Run) -> None:
    entries = _json(run, "list")
    assert {e["kind"] for e in entries} >= {"item"}
    item_id = item_id_for(run, "green tea")
    assert [e["entry_id"] for e in _json(run, "list", "--kind", "item", "--query", "green tea")]
    shown = _json(run, "show", "item", item_id)
    assert shown["entry_id"] == item_id and not shown["paused"] and not shown["pinned"]
    edited = _json(run, "edit", "item", item_id, "I prefer mint tea over coffee in the morning.")
    assert edited["text"].startswith("I prefer mint tea")
    hits = search(run, "mint tea", "--mode", "rag", "--k", "3")["hits"]
    assert hits[0]["item_id"] == item_id
    assert _json(run, "pause", "item", item_id)["paused"] is True
    hits = search(run, "mint tea", "--mode", "rag", "--k", "3")["hits"]
    assert item_id not in [h["item_id"] for h in hits]
    assert _json(run, "pause", "item", item_id, "--off")["paused"] is False
    assert _json(run, "pin", "item", item_id)["pinned"] is True
    deleted = _json(run, "delete", "item", item_id, "--yes")
    assert deleted["deleted"] == item_id
    assert run("memory", "show", "item", item_id).code != 0
    events = run("query", "events", "--kind", "memory.entry_changed", "--json").json()
    changes = [(e["payload"]["entry_id"], e["payload"]["change"]) for e in events]
    edited = [c for c in changes if c[1] == "edited"]
    assert (item_id, "edited") in edited  # and any entry that held the same words
    assert [c for c in changes if c[0] == item_id] == [
        (item_id, "edited"),
        (item_id, "paused"),
        (item_id, "resumed"),
        (item_id, "pinned"),
        (item_id, "deleted"),
    ]


def test_forget_is_still_an_alias_for_one_item(run: Run) -> None:
    item_id = item_id_for(run, "grant report")
    assert _json(run, "forget", item_id, "--yes")["forgotten"] == item_id
    assert run("memory", "show", item_id).code != 0


def test_paused_switch_and_forget_all(run: Run) -> None:
    assert _json(run, "paused") == {"memory_paused": False}
    assert _json(run, "paused", "on") == {"memory_paused": True}
    assert _json(run, "paused") == {"memory_paused": True}  # a saved setting
    refused = run("memory", "forget-all")
    assert refused.code != 0 and "--yes-forget-everything" in refused.err
    done = _json(run, "forget-all", "--yes-forget-everything")
    assert done["forgotten"]["memory_items"] > 0 and done["kept"] == ["knowledge bases"]
    assert _json(run, "list") == []


def test_rebuild_replays_the_log_into_the_same_state(run: Run) -> None:
    """The projections thrown away and rebuilt from the log (`rilai memory rebuild`) are
    what they were: the pauses and pins, and the index without the paused item."""
    paused_id = item_id_for(run, "green tea")
    pinned_id = item_id_for(run, "grant report")
    _json(run, "pause", "item", paused_id)
    _json(run, "pin", "item", pinned_id)
    before = {(e["kind"], e["entry_id"]): (e["paused"], e["pinned"]) for e in _json(run, "list")}
    done = _json(run, "rebuild")
    assert done["paused"] == 1 and done["pinned"] == 1
    after = {(e["kind"], e["entry_id"]): (e["paused"], e["pinned"]) for e in _json(run, "list")}
    assert after == before
    hits = search(run, "green tea", "--mode", "rag", "--k", "5")["hits"]
    assert paused_id not in [h["item_id"] for h in hits]
