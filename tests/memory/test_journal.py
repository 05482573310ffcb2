"""Seed 002's journal on real files: long-term.md, daily JSON, retention, path safety."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.errors import MemoryInputError, StorageError
from rilai_desktop.memory.journal import Journal
from rilai_desktop.memory.journal_format import (
    DailyMemory,
    DailySessionEntry,
    DailyTaskEntry,
    first_sentence_summary,
)

T0 = datetime(2026, 1, 20, 10, 5, 0, tzinfo=UTC)
AGENT = "agent-1"


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.at = now

    def now(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "agents"


@pytest.fixture
def journal(root: Path, clock: Clock) -> Journal:
    return Journal(root, clock=clock)


def long_term(root: Path, agent: str = AGENT) -> Path:
    return root / agent / "memory" / "long-term.md"


def day_file(root: Path, day: str, agent: str = AGENT) -> Path:
    return root / agent / "memory" / "daily" / f"{day}.json"


def session(
    sid: str = "sess-1", started: datetime = T0, tasks: list[DailyTaskEntry] | None = None
) -> DailySessionEntry:
    if tasks is None:
        tasks = [DailyTaskEntry(type="extract", status="success")]
    return DailySessionEntry(id=sid, started_at=started, tasks=tasks)


# ── long-term.md ─────────────────────────────────────────────────────────────


def test_append_creates_the_file_with_title_and_updates(
    journal: Journal, root: Path, clock: Clock
) -> None:
    assert journal.read_long_term(AGENT) == ""
    journal.append_to_long_term(AGENT, "  The user prefers tea.  ")
    clock.at = datetime(2026, 1, 21, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    journal.appendToLongTerm(AGENT, "Works nights.")
    assert long_term(root).read_text(encoding="utf-8") == (
        "# Long-term memory — agent-1\n"
        "\n"
        "## Updates\n"
        "\n"
        "- [2026-01-20 10:05 UTC] The user prefers tea.\n"
        "- [2026-01-21 07:30 UTC] Works nights.\n"
    )
    assert journal.read_long_term(AGENT) == long_term(root).read_text(encoding="utf-8")


def test_multiline_content_stays_one_entry(journal: Journal, root: Path) -> None:
    journal.append_to_long_term(AGENT, "First line\r\n\r\nsecond line\n  indented")
    lines = long_term(root).read_text(encoding="utf-8").splitlines()
    assert lines[-3:] == [
        "- [2026-01-20 10:05 UTC] First line",
        "  second line",
        "    indented",
    ]


def test_append_goes_under_updates_and_keeps_other_sections(journal: Journal, root: Path) -> None:
    path = long_term(root)
    path.parent.mkdir(parents=True)
    path.write_text(
        "# My notes\n\n## Updates\n\n- [2026-01-01 00:00 UTC] old\n\n## Hand-written\n\nmine\n",
        encoding="utf-8",
    )
    journal.append_to_long_term(AGENT, "new")
    assert path.read_text(encoding="utf-8") == (
        "# My notes\n\n## Updates\n\n- [2026-01-01 00:00 UTC] old\n"
        "- [2026-01-20 10:05 UTC] new\n\n## Hand-written\n\nmine\n"
    )


def test_a_file_without_updates_gets_the_section(journal: Journal, root: Path) -> None:
    path = long_term(root)
    path.parent.mkdir(parents=True)
    path.write_text("# Mine\n\nSome prose.\n\n\n", encoding="utf-8")
    journal.append_to_long_term(AGENT, "x")
    assert path.read_text(encoding="utf-8") == (
        "# Mine\n\nSome prose.\n\n## Updates\n\n- [2026-01-20 10:05 UTC] x\n"
    )


def test_promote_prefixes_and_skips_exact_duplicates(
    journal: Journal, root: Path, clock: Clock
) -> None:
    assert journal.promote_to_long_term(AGENT, "Likes hiking.") is True
    clock.advance(days=1)
    assert journal.promoteToLongTerm(AGENT, "Likes hiking.") is False
    assert journal.promote_to_long_term(AGENT, "  Likes hiking.\n") is False
    assert journal.promote_to_long_term(AGENT, "Likes hiking!") is True
    journal.append_to_long_term(AGENT, "Likes swimming.")
    assert journal.promote_to_long_term(AGENT, "Likes swimming.") is True  # not yet promoted
    updates = long_term(root).read_text(encoding="utf-8").split("## Updates\n\n")[1]
    assert updates.splitlines() == [
        "- [2026-01-20 10:05 UTC] Promoted: Likes hiking.",
        "- [2026-01-21 10:05 UTC] Promoted: Likes hiking!",
        "- [2026-01-21 10:05 UTC] Likes swimming.",
        "- [2026-01-21 10:05 UTC] Promoted: Likes swimming.",
    ]


@pytest.mark.parametrize("content", ["", "   \n\t", None, 5, "x" * 10_001])
def test_bad_content_is_refused(journal: Journal, root: Path, content: Any) -> None:
    with pytest.raises(MemoryInputError):
        journal.append_to_long_term(AGENT, content)
    with pytest.raises(MemoryInputError):
        journal.promote_to_long_term(AGENT, content)
    assert not root.exists()


# ── summarize ────────────────────────────────────────────────────────────────


def fill(journal: Journal, clock: Clock, n: int) -> None:
    for i in range(n):
        journal.append_to_long_term(AGENT, f"Fact {i:03d} is true. Details that pad it {i}.")
        clock.advance(minutes=1)


def test_summarize_does_nothing_under_the_limit(journal: Journal, root: Path, clock: Clock) -> None:
    assert journal.summarize_long_term(AGENT) is False  # no file
    fill(journal, clock, 10)
    before = long_term(root).read_bytes()
    assert len(before) > 512
    assert journal.summarizeLongTerm(AGENT, max_bytes=len(before)) is False
    assert long_term(root).read_bytes() == before


def test_summarize_keeps_the_newest_and_summarises_the_rest(
    journal: Journal, root: Path, clock: Clock
) -> None:
    fill(journal, clock, 60)
    assert journal.summarize_long_term(AGENT, max_bytes=2_000) is True
    text = long_term(root).read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 2_000
    assert text.startswith("# Long-term memory — agent-1\n\n## Summary\n\n- Fact ")
    summary, updates = text.split("\n## Updates\n\n")
    kept = updates.splitlines()
    assert kept[-1] == "- [2026-01-20 11:04 UTC] Fact 059 is true. Details that pad it 59."
    assert sum(len(line) + 1 for line in kept) <= 1_000
    first_kept = int(kept[0].split("Fact ")[1][:3])
    # everything older than the kept updates is in the summary, first sentence only,
    # newest first when something had to go
    assert f"- Fact {first_kept - 1:03d} is true." in summary.splitlines()
    assert "Details" not in summary
    assert "[2026" not in summary
    # a second pass carries the summary forward
    fill(journal, clock, 20)
    assert journal.summarize_long_term(AGENT, max_bytes=2_000) is True
    again = long_term(root).read_text(encoding="utf-8")
    assert again.count("## Summary") == 1 and again.count("## Updates") == 1
    assert f"- Fact {first_kept - 1:03d} is true." in again
    assert len(again.encode("utf-8")) <= 2_000


def test_a_custom_summarizer_gets_the_old_entries(
    journal: Journal, root: Path, clock: Clock
) -> None:
    fill(journal, clock, 30)
    seen: list[list[str]] = []

    def summarizer(entries: list[str]) -> str:
        seen.append(entries)
        return f"{len(entries)} older facts about the user."

    assert journal.summarize_long_term(AGENT, max_bytes=1_200, summarizer=summarizer) is True
    (entries,) = seen
    assert entries[0] == "[2026-01-20 10:05 UTC] Fact 000 is true. Details that pad it 0."
    text = long_term(root).read_text(encoding="utf-8")
    assert f"## Summary\n\n{len(entries)} older facts about the user.\n\n## Updates" in text
    assert f"Fact {len(entries):03d} is true." in text.split("## Updates")[1]


def test_a_failing_summarizer_leaves_the_file_as_it_was(
    journal: Journal, root: Path, clock: Clock
) -> None:
    fill(journal, clock, 30)
    before = long_term(root).read_bytes()

    def broken(entries: list[str]) -> str:
        raise RuntimeError("model crashed")

    with pytest.raises(RuntimeError):
        journal.summarize_long_term(AGENT, max_bytes=1_000, summarizer=broken)
    with pytest.raises(MemoryInputError):
        journal.summarize_long_term(AGENT, max_bytes=1_000, summarizer=lambda e: 3)  # type: ignore[arg-type,return-value]
    with pytest.raises(MemoryInputError):
        journal.summarize_long_term(AGENT, max_bytes=10)
    assert long_term(root).read_bytes() == before
    assert sorted(p.name for p in long_term(root).parent.iterdir()) == ["long-term.md"]


def test_the_default_summarizer_is_deterministic() -> None:
    entries = [
        "[2026-01-01 00:00 UTC] Likes tea. Drinks it daily.",
        "Likes tea! Loud.",
        "[2026-01-02 00:00 UTC] likes tea. Again.",
        "Promoted: Lives in Lyon",
        "   ",
        "x" * 400,
    ]
    out = first_sentence_summary(entries)
    assert out.splitlines() == [
        "- Likes tea.",
        "- Likes tea!",
        "- Promoted: Lives in Lyon",
        "- " + "x" * 299 + "…",
    ]
    assert out == first_sentence_summary(list(entries))
    assert first_sentence_summary(entries, max_bytes=40).splitlines() == [
        "- Likes tea!",
        "- Promoted: Lives in Lyon",
    ]
    assert first_sentence_summary(entries, max_bytes=0) == ""


# ── daily JSON ───────────────────────────────────────────────────────────────


def test_daily_file_uses_the_seed_keys(journal: Journal, root: Path) -> None:
    entry = session(
        tasks=[
            DailyTaskEntry(
                type="extract",
                input_context_ids=["ctx_a", "ctx_b"],
                output_context_id="ctx_c",
                duration_ms=1234,
                status="success",
            ),
            DailyTaskEntry(type="analyse", status="error", error="timeout"),
        ]
    )
    assert journal.record_to_daily(AGENT, entry) is None
    data = json.loads(day_file(root, "2026-01-20").read_text(encoding="utf-8"))
    assert data == {
        "date": "2026-01-20",
        "sessions": [
            {
                "id": "sess-1",
                "startedAt": "2026-01-20T10:05:00Z",
                "tasks": [
                    {
                        "type": "extract",
                        "inputContextIds": ["ctx_a", "ctx_b"],
                        "outputContextId": "ctx_c",
                        "durationMs": 1234,
                        "status": "success",
                    },
                    {
                        "type": "analyse",
                        "inputContextIds": [],
                        "status": "error",
                        "error": "timeout",
                    },
                ],
            }
        ],
    }
    read = journal.read_daily(AGENT, "2026-01-20")
    assert read == DailyMemory(date=date(2026, 1, 20), sessions=[entry])
    assert journal.read_daily(AGENT, date(2026, 1, 19)) is None


def test_same_session_id_merges_tasks(journal: Journal) -> None:
    first = session(tasks=[DailyTaskEntry(type="a", status="success")])
    journal.record_to_daily(AGENT, first)
    journal.recordToDaily(
        AGENT,
        {
            "id": "sess-1",
            "startedAt": "2026-01-20T10:30:00+00:00",
            "tasks": [{"type": "b", "status": "error", "error": "x", "durationMs": 3}],
        },
    )
    journal.record_to_daily(AGENT, session("sess-2", tasks=[]))
    read = journal.read_daily(AGENT, "2026-01-20")
    assert read is not None
    assert [s.id for s in read.sessions] == ["sess-1", "sess-2"]
    assert read.sessions[0].started_at == T0  # the first record's start is kept
    assert [(t.type, t.status, t.duration_ms) for t in read.sessions[0].tasks] == [
        ("a", "success", None),
        ("b", "error", 3),
    ]
    assert first.tasks == [DailyTaskEntry(type="a", status="success")]  # caller's copy untouched


def test_a_day_written_by_this_process_is_not_parsed_again(
    journal: Journal, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The soak found each turn parsing the whole day file (it grows with every turn):
    the log this process wrote last is reused while the file still holds its text."""
    import rilai_desktop.memory.journal as journal_module

    parsed: list[str] = []
    real = journal_module._parse_daily

    def counting(raw: str, day: date) -> DailyMemory | None:
        parsed.append(raw)
        return real(raw, day)

    monkeypatch.setattr(journal_module, "_parse_daily", counting)
    for n in range(5):
        journal.record_to_daily(
            AGENT, session(tasks=[DailyTaskEntry(type=f"t{n}", status="success")])
        )
    assert parsed == []  # created, then reused four times
    read = journal.read_daily(AGENT, "2026-01-20")
    assert read is not None and [t.type for t in read.sessions[0].tasks] == [
        f"t{n}" for n in range(5)
    ]


def test_a_day_file_changed_outside_the_process_is_read_again(journal: Journal, root: Path) -> None:
    journal.record_to_daily(AGENT, session(tasks=[DailyTaskEntry(type="a", status="success")]))
    path = day_file(root, "2026-01-20")
    other = Journal(root)  # another process (or a hand edit) adds a session
    other.record_to_daily(
        AGENT, session("sess-other", tasks=[DailyTaskEntry(type="x", status="success")])
    )
    journal.record_to_daily(AGENT, session(tasks=[DailyTaskEntry(type="b", status="success")]))
    read = journal.read_daily(AGENT, "2026-01-20")
    assert read is not None
    assert [s.id for s in read.sessions] == ["sess-1", "sess-other"]
    assert [t.type for t in read.sessions[0].tasks] == ["a", "b"]
    path.write_text("{not json", encoding="utf-8")  # corrupted by hand: still set aside
    assert (
        journal.record_to_daily(AGENT, session(tasks=[DailyTaskEntry(type="c", status="success")]))
        is not None
    )


def test_the_day_is_the_utc_day_the_session_started(journal: Journal, root: Path) -> None:
    evening = datetime(2026, 1, 20, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    journal.record_to_daily(AGENT, session(started=evening))
    assert day_file(root, "2026-01-21").exists()
    assert not day_file(root, "2026-01-20").exists()


@pytest.mark.parametrize(
    "entry",
    [
        {"id": "s", "startedAt": "2026-01-20T10:00:00", "tasks": []},  # naive
        {"id": "", "startedAt": "2026-01-20T10:00:00Z", "tasks": []},
        {"id": "s", "startedAt": "2026-01-20T10:00:00Z", "tasks": [{"type": "t"}]},
        {"id": "s", "startedAt": "2026-01-20T10:00:00Z", "tasks": [{"type": "t", "status": "ok"}]},
        {"id": "s", "startedAt": "2026-01-20T10:00:00Z", "surprise": 1},
        {
            "id": "s",
            "startedAt": "2026-01-20T10:00:00Z",
            "tasks": [{"type": "t", "status": "success", "durationMs": -1}],
        },
        ["not", "a", "mapping"],
    ],
)
def test_bad_daily_entries_are_refused(journal: Journal, root: Path, entry: Any) -> None:
    with pytest.raises(MemoryInputError):
        journal.record_to_daily(AGENT, entry)
    assert not root.exists()


def test_a_corrupt_daily_file_is_set_aside_not_overwritten(
    journal: Journal, root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = day_file(root, "2026-01-20")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"date": "2026-01-20", "sessions": [ truncated')
    with pytest.raises(StorageError, match="corrupted"):
        journal.read_daily(AGENT, "2026-01-20")
    assert path.read_bytes().endswith(b"truncated")  # reading changes nothing

    with caplog.at_level(logging.WARNING, logger="rilai_desktop.memory.journal"):
        kept = journal.record_to_daily(AGENT, session())
    assert kept == path.with_name("2026-01-20.json.corrupt-20260120T100500000000Z")
    assert kept.read_bytes() == b'{"date": "2026-01-20", "sessions": [ truncated'
    assert str(kept) in caplog.text
    fresh = journal.read_daily(AGENT, "2026-01-20")
    assert fresh is not None and [s.id for s in fresh.sessions] == ["sess-1"]

    # a second corruption in the same instant gets its own name
    path.write_bytes(b"\xff\xfe")
    again = journal.record_to_daily(AGENT, session())
    assert again is not None and again != kept and again.read_bytes() == b"\xff\xfe"


def test_a_daily_file_for_another_date_counts_as_corrupt(journal: Journal, root: Path) -> None:
    path = day_file(root, "2026-01-20")
    path.parent.mkdir(parents=True)
    path.write_text('{"date": "2020-01-01", "sessions": []}', encoding="utf-8")
    assert journal.record_to_daily(AGENT, session()) is not None


# ── retention ────────────────────────────────────────────────────────────────


def test_cleanup_deletes_days_older_than_retention(
    journal: Journal, root: Path, clock: Clock
) -> None:
    assert journal.cleanup_old_daily(AGENT, 7) == 0  # no folder yet
    for day in range(1, 21):
        journal.record_to_daily(AGENT, session(started=datetime(2026, 1, day, 12, tzinfo=UTC)))
    folder = day_file(root, "x").parent
    strays = ["notes.json", "2026-13-45.json", "2026-01-01.json.corrupt-1", "2026-01-02.txt"]
    for name in strays:
        (folder / name).write_text("keep me", encoding="utf-8")
    (folder / "2026-01-03.json.d").mkdir()

    assert journal.cleanup_old_daily(AGENT, 7) == 12  # 01..12 go, 13..20 stay
    left = sorted(p.name for p in folder.iterdir())
    assert left == sorted(
        [f"2026-01-{d:02d}.json" for d in range(13, 21)] + [*strays, "2026-01-03.json.d"]
    )
    clock.advance(days=1)
    assert journal.cleanupOldDaily(AGENT, 7) == 1  # 2026-01-13 is now 8 days old
    assert journal.cleanup_old_daily(AGENT, 0) == 7  # only today (the 21st) is kept
    assert journal.cleanup_old_daily(AGENT, 0) == 0


@pytest.mark.parametrize("days", [-1, 1.5, True, "7"])
def test_bad_retention_is_refused(journal: Journal, days: Any) -> None:
    with pytest.raises(MemoryInputError):
        journal.cleanup_old_daily(AGENT, days)


# ── path safety and permissions ──────────────────────────────────────────────


@pytest.mark.parametrize(
    "agent",
    ["..", ".", "../escape", "a/b", "a\\b", "/abs", "", "a" * 65, "a\n", "spa ce", "é", None],
)
def test_unsafe_agent_ids_are_refused(journal: Journal, tmp_path: Path, agent: Any) -> None:
    calls: list[Callable[[], object]] = [
        lambda: journal.append_to_long_term(agent, "x"),
        lambda: journal.promote_to_long_term(agent, "x"),
        lambda: journal.summarize_long_term(agent),
        lambda: journal.read_long_term(agent),
        lambda: journal.record_to_daily(agent, session()),
        lambda: journal.read_daily(agent, "2026-01-20"),
        lambda: journal.cleanup_old_daily(agent, 1),
    ]
    for call in calls:
        with pytest.raises(MemoryInputError, match="agent_id"):
            call()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_dotted_ids_that_are_not_dot_or_dotdot_are_fine(journal: Journal, root: Path) -> None:
    journal.append_to_long_term("a.b-c_D9", "x")
    journal.append_to_long_term("...", "x")
    assert long_term(root, "a.b-c_D9").exists() and long_term(root, "...").exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_directories_are_private_and_files_owner_only(journal: Journal, root: Path) -> None:
    journal.append_to_long_term(AGENT, "x")
    journal.record_to_daily(AGENT, session())
    for folder in (root, root / AGENT, root / AGENT / "memory", day_file(root, "x").parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    for file in (long_term(root), day_file(root, "2026-01-20")):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []


def test_a_naive_clock_is_refused(root: Path) -> None:
    journal = Journal(root, clock=Clock(datetime(2026, 1, 1)))
    with pytest.raises(MemoryInputError, match="clock"):
        journal.append_to_long_term(AGENT, "x")


def test_disk_failures_are_storage_errors(journal: Journal, root: Path) -> None:
    root.mkdir()
    (root / AGENT).write_text("a file where a folder should be", encoding="utf-8")
    with pytest.raises(StorageError) as caught:
        journal.append_to_long_term(AGENT, "x")
    assert caught.value.code == "MEM-009"
    with pytest.raises(StorageError):
        journal.record_to_daily(AGENT, session())
