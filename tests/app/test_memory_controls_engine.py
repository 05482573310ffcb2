"""The memory controls through the real Engine and the scripted LLM (issue 20): "memory
paused" commits and recalls nothing in a turn; "forget everything" leaves none of the
forgotten texts on disk (the database file's bytes, its WAL, the category and journal
files)."""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.app.engine import Engine
from rilai_desktop.config import load_settings
from rilai_desktop.contracts import EventKind

SECRETS = ("Zorblaxia", "kumquatberry", "Quillfeather")
MESSAGES = (
    "I live in Zorblaxia with my partner.",
    "I love kumquatberry jam on toast.",
    "My sister is called Quillfeather.",
)


def _turn(engine: Engine, text: str) -> None:
    engine.send(text).result(timeout=60)


def _counts(engine: Engine) -> dict[str, int]:
    conn = engine.parts.memory.connection  # type: ignore[union-attr]
    tables = ("memory_items", "memory_user_facts", "memory_episodes", "memory_goals", "contexts")
    return {t: int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in tables}


def test_memory_paused_commits_and_recalls_nothing(engine: Engine) -> None:
    _turn(engine, MESSAGES[0])
    before = _counts(engine)
    assert before["memory_items"] > 0
    engine.memory.set_recording_paused(True)
    assert engine.memory.recording_paused
    settings_file = engine.parts.core.paths.settings_file
    assert load_settings(settings_file).settings.memory.paused is True
    _turn(engine, "Where do I live? I love kumquatberry jam too.")
    assert _counts(engine) == before  # no items, turn records, facts, episodes, contexts
    log = engine.parts.core.event_log
    recalled = list(log.events(kind=EventKind.MEMORY_RETRIEVED))[-1].payload
    assert recalled["items"] == [] and recalled["user_facts"] == []
    assert recalled["episodes"] == [] and recalled["open_threads"] == []
    switched = [e.payload for e in log.events(kind="memory.switched")]
    assert switched == [{"paused": True}]
    engine.memory.set_recording_paused(False)
    _turn(engine, "Where do I live?")
    recalled = list(log.events(kind=EventKind.MEMORY_RETRIEVED))[-1].payload
    assert any("Zorblaxia" in i["text"] for i in recalled["items"])


def _disk_texts(home: Path) -> bytes:
    """Every file under RILAI_HOME (the database, its WAL, the index, the category pages,
    the journal, the context store...), except the models."""
    out = b""
    for path in sorted(home.rglob("*")):
        if path.is_file() and "models" not in path.parts:
            out += path.read_bytes()
    return out


def test_forget_everything_leaves_no_text_on_disk(engine: Engine, rilai_home: Path) -> None:
    for text in MESSAGES:
        _turn(engine, text)
    facts = engine.memory.entries("fact")
    assert any("kumquatberry" in f.text for f in facts)  # learned through the real engine
    engine.memory.remember("Quillfeather's birthday is in June", "people")
    assert all(s.encode() in _disk_texts(rilai_home) for s in SECRETS)
    counts = engine.memory.forget_everything()
    assert counts["memory_items"] > 0 and counts["events"] > 0
    assert engine.memory.entries() == []
    disk = _disk_texts(rilai_home)
    for secret in SECRETS:
        assert secret.encode() not in disk, secret
        assert secret.encode("utf-16-le") not in disk, secret
    forgotten = list(engine.parts.core.event_log.events(kind="memory.forgotten"))
    assert len(forgotten) == 1 and set(forgotten[0].payload) == {"counts"}
    # memory still works afterwards
    _turn(engine, "I live in Zorblaxia again.")
    assert engine.memory.search("Zorblaxia").items
