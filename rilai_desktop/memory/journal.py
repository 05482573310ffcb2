"""Seed 002's MemoryManager: an agent's long-term.md and its daily JSON logs, on disk.

Layout under ``root``: ``{agent_id}/memory/long-term.md`` and
``{agent_id}/memory/daily/YYYY-MM-DD.json``. Directories are 0700, files 0600, and every
write goes to a temp file beside the target and is moved over it with ``os.replace``, so a
crash leaves the old file or the new one, never half of one. A daily file that cannot be
read is renamed ``*.corrupt-<timestamp>`` before a fresh one is started: nothing is
silently overwritten. Writes are serialised within the process by a lock. The file
formats (the daily log's models, long-term.md's sections) live in ``journal_format.py``.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import RilaiError, StorageError
from rilai_desktop.memory._sql import check_days
from rilai_desktop.memory.journal_format import (
    _STAMP,
    AGENT_ID,
    DAY_FILE,
    MIN_SUMMARY_BYTES,
    PROMOTED,
    SUMMARY,
    UPDATES,
    DailyMemory,
    DailySessionEntry,
    Summarizer,
    _atomic_write,
    _bad,
    _disk,
    _entry_lines,
    _entry_text,
    _fit,
    _normalise,
    _read_text,
    _render,
    _sections,
    _split_entries,
    _trim,
    first_sentence_summary,
)

log = logging.getLogger(__name__)


# ── the journal ──────────────────────────────────────────────────────────────


class Journal:
    """Seed 002's MemoryManager over plain files (see the module docstring)."""

    def __init__(self, root: Path | str, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.root = Path(root)
        self._clock = clock
        self._lock = threading.RLock()
        # the day file this process wrote last, its text and its parsed log: a day with
        # many turns is not parsed again on each (the file is still read and compared, so
        # a change by another process or by hand is seen)
        self._last_daily: tuple[Path, str, DailyMemory] | None = None

    # ── paths ──────────────────────────────────────────────────────────────
    def memory_dir(self, agent_id: str) -> Path:
        if (
            not isinstance(agent_id, str)
            or not AGENT_ID.fullmatch(agent_id)
            or agent_id in {".", ".."}
        ):
            raise _bad("agent_id", f"{agent_id!r} must match [A-Za-z0-9_.-]{{1,64}}, not . or ..")
        return self.root / agent_id / "memory"

    def long_term_path(self, agent_id: str) -> Path:
        return self.memory_dir(agent_id) / "long-term.md"

    def daily_path(self, agent_id: str, day: dt.date | str) -> Path:
        return self.memory_dir(agent_id) / "daily" / f"{_as_day(day).isoformat()}.json"

    def _now(self) -> dt.datetime:
        now = self._clock.now()
        if now.tzinfo is None or now.utcoffset() is None:
            raise _bad("clock", "must return an aware datetime")
        return now.astimezone(dt.UTC)

    def _ensure_dir(self, path: Path) -> None:
        with _disk("create the directory", path):
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            current = self.root
            for part in path.relative_to(self.root).parts:
                current = current / part
                try:
                    current.mkdir(mode=0o700)
                except FileExistsError:
                    continue
                os.chmod(current, 0o700)

    # ── long-term.md ───────────────────────────────────────────────────────
    def read_long_term(self, agent_id: str) -> str:
        """The file's text, or "" when there is none yet."""
        path = self.long_term_path(agent_id)
        with _disk("read", path):
            return _read_text(path) or ""

    def append_to_long_term(self, agent_id: str, content: str) -> None:
        """Add ``- [YYYY-MM-DD HH:MM UTC] content`` at the end of the ``## Updates`` section."""
        text = _normalise(content, "content")
        self._append(agent_id, text, dedupe=False)

    def promote_to_long_term(self, agent_id: str, insight: str) -> bool:
        """Append ``Promoted: insight`` under ``## Updates``; False when already there."""
        text = PROMOTED + _normalise(insight, "insight")
        return self._append(agent_id, text, dedupe=True)

    def _append(self, agent_id: str, text: str, *, dedupe: bool) -> bool:
        path = self.long_term_path(agent_id)
        stamp = self._now().strftime("%Y-%m-%d %H:%M UTC")
        with self._lock, _disk("update", path):
            self._ensure_dir(path.parent)
            current = _read_text(path)
            if not current:
                current = f"# Long-term memory — {agent_id}\n\n{UPDATES}\n"
            lines = current.splitlines()
            try:
                head = next(i for i, line in enumerate(lines) if line.rstrip() == UPDATES)
            except StopIteration:
                lines = [*_trim(lines), "", UPDATES]
                head = len(lines) - 1
            end = next(
                (i for i in range(head + 1, len(lines)) if lines[i].startswith(("# ", "## "))),
                len(lines),
            )
            if dedupe:
                for entry in _split_entries(lines[head + 1 : end]):
                    if _STAMP.sub("", _entry_text(entry), count=1) == text:
                        return False
            at = end
            while at > head + 1 and not lines[at - 1].strip():
                at -= 1
            new = _entry_lines(stamp, text)
            lines[at:at] = new if at > head + 1 else ["", *new]
            _atomic_write(path, "\n".join(lines) + "\n")
        return True

    def summarize_long_term(
        self,
        agent_id: str,
        *,
        max_bytes: int = 64_000,
        summarizer: Summarizer | None = None,
    ) -> bool:
        """When the file exceeds ``max_bytes``, fold the older updates into ``## Summary``.

        The newest updates that fit in half of ``max_bytes`` stay verbatim; the lines of an
        existing summary and the older updates go to ``summarizer`` (default:
        :func:`first_sentence_summary`) and its text, cut to what fits, becomes the new
        summary. Returns True when the file was rewritten. If the summarizer fails the file
        is left as it was.
        """
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
            raise _bad("max_bytes", "must be an integer")
        if max_bytes < MIN_SUMMARY_BYTES:
            raise _bad("max_bytes", f"must be at least {MIN_SUMMARY_BYTES}")
        path = self.long_term_path(agent_id)
        with self._lock, _disk("summarize", path):
            current = _read_text(path)
            if current is None or len(current.encode("utf-8")) <= max_bytes:
                return False
            preamble, sections = _sections(current.splitlines())
            names = [heading for heading, _ in sections]
            if UPDATES not in names:
                return False
            updates = _split_entries(sections[names.index(UPDATES)][1])
            kept: list[list[str]] = []
            used = 0
            for entry in reversed(updates):
                used += sum(len(line.encode("utf-8")) + 1 for line in entry)
                if used > max_bytes // 2:
                    break
                kept.insert(0, entry)
            old = updates[: len(updates) - len(kept)]
            if not old:
                return False
            previous = [
                line.strip().removeprefix("- ")
                for heading, body in sections
                if heading == SUMMARY
                for line in body
                if line.strip()
            ]
            others = [(h, b) for h, b in sections if h not in (SUMMARY, UPDATES)]
            kept_lines = [line for entry in kept for line in entry]
            skeleton = _render(preamble, [*others, (SUMMARY, []), (UPDATES, kept_lines)])
            budget = max(0, max_bytes - len(skeleton.encode("utf-8")) - 2)
            inputs = previous + [_entry_text(entry) for entry in old]
            if summarizer is None:
                summary = first_sentence_summary(inputs, max_bytes=budget)
            else:
                summary = summarizer(list(inputs))
                if not isinstance(summary, str):
                    raise _bad("summarizer", f"returned {type(summary).__name__}, not str")
            body = _fit(summary.strip(), budget).splitlines()
            result = _render(preamble, [*others, (SUMMARY, body), (UPDATES, kept_lines)])
            _atomic_write(path, result)
        return True

    # ── daily JSON ─────────────────────────────────────────────────────────
    def read_daily(self, agent_id: str, day: dt.date | str) -> DailyMemory | None:
        """That day's log, or None. A file that cannot be read raises StorageError."""
        path = self.daily_path(agent_id, day)
        with _disk("read", path):
            raw = _read_text(path)
        if raw is None:
            return None
        memory = _parse_daily(raw, _as_day(day))
        if memory is None:
            raise StorageError(
                f"The daily memory file {path} is corrupted and was left as it is",
                context={"path": str(path)},
                recovery_suggestions=[
                    "Fix the JSON by hand or move the file aside; the next record_to_daily "
                    "will set it aside as *.corrupt-<timestamp> and start a fresh one"
                ],
            )
        return memory

    def record_to_daily(
        self, agent_id: str, entry: DailySessionEntry | Mapping[str, Any]
    ) -> Path | None:
        """Add a session to the log of the (UTC) day it started; same id → tasks merged.

        Returns the path a corrupted day file was moved to (a warning is logged too), or
        None when nothing had to be set aside.
        """
        session = _as_session(entry)
        day = session.started_at.astimezone(dt.UTC).date()
        path = self.daily_path(agent_id, day)
        preserved: Path | None = None
        with self._lock, _disk("record to", path):
            self._ensure_dir(path.parent)
            try:
                raw = _read_text(path)
            except UnicodeDecodeError:
                raw = ""
            last, self._last_daily = self._last_daily, None  # until this write succeeds
            if last is not None and last[0] == path and raw == last[1]:
                memory: DailyMemory | None = last[2]
            else:
                memory = None if raw is None else _parse_daily(raw, day)
            if raw is not None and memory is None:
                preserved = self._set_aside(path)
            if memory is None:
                memory = DailyMemory(date=day)
            same = next((s for s in memory.sessions if s.id == session.id), None)
            if same is None:
                memory.sessions.append(session)
            else:
                same.tasks.extend(session.tasks)
            text = memory.to_json()
            _atomic_write(path, text)
            self._last_daily = (path, text, memory)
        return preserved

    def _set_aside(self, path: Path) -> Path:
        stamp = self._now().strftime("%Y%m%dT%H%M%S%fZ")
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        n = 0
        while target.exists():
            n += 1
            target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        os.rename(path, target)
        log.warning("Daily memory file %s was corrupted; kept it as %s", path, target)
        return target

    def cleanup_old_daily(self, agent_id: str, retention_days: int) -> int:
        """Delete day files older than ``retention_days`` before today; returns the count.

        With today 2026-01-20 and 7 days, 2026-01-13.json stays and 2026-01-12.json goes.
        Files not named YYYY-MM-DD.json (including ``*.corrupt-*``) are never touched.
        """
        if isinstance(retention_days, bool) or not isinstance(retention_days, int):
            raise _bad("retention_days", "must be an integer")
        if retention_days < 0:
            raise _bad("retention_days", "must be 0 or more")
        cutoff = self._now().date() - dt.timedelta(days=retention_days)
        folder = self.memory_dir(agent_id) / "daily"
        deleted = 0
        with self._lock, _disk("clean up", folder):
            if not folder.is_dir():
                return 0
            with os.scandir(folder) as found_all:
                for found in found_all:
                    if not DAY_FILE.fullmatch(found.name) or found.is_dir(follow_symlinks=False):
                        continue
                    try:
                        day = dt.date.fromisoformat(found.name.removesuffix(".json"))
                    except ValueError:
                        continue
                    if day < cutoff:
                        os.unlink(found.path)
                        deleted += 1
        return deleted

    def agents(self) -> list[str]:
        """The agents that have a daily-journal folder."""
        if not self.root.is_dir():
            return []
        return sorted(
            e.name
            for e in self.root.iterdir()
            if AGENT_ID.fullmatch(e.name)
            and e.name not in {".", ".."}
            and not e.is_symlink()
            and (e / "memory" / "daily").is_dir()
        )

    def cleanup_all_daily(self, retention_days: int) -> int:
        """``cleanup_old_daily`` for every agent (at least one day kept); the count.

        An agent whose files cannot be cleaned up is reported (StorageError) after the
        others were done.
        """
        days = check_days(retention_days, "retention_days")
        deleted = 0
        failed: dict[str, str] = {}
        for agent in self.agents():
            try:
                deleted += self.cleanup_old_daily(agent, days)
            except (RilaiError, OSError) as exc:
                failed[agent] = str(exc)
        if failed:
            raise StorageError(
                f"Deleted {deleted} old daily files, but could not clean up for "
                f"{', '.join(sorted(failed))}",
                context={"deleted": deleted, "failed": failed},
                recovery_suggestions=["Check the permissions of the agents' daily folders"],
            )
        return deleted

    # seed 002's names
    appendToLongTerm = append_to_long_term
    summarizeLongTerm = summarize_long_term
    recordToDaily = record_to_daily
    cleanupOldDaily = cleanup_old_daily
    promoteToLongTerm = promote_to_long_term


def _as_day(day: dt.date | str) -> dt.date:
    if isinstance(day, dt.datetime):
        if day.tzinfo is None or day.utcoffset() is None:
            raise _bad("date", "a datetime must carry a time zone")
        return day.astimezone(dt.UTC).date()
    if isinstance(day, dt.date):
        return day
    if isinstance(day, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
        try:
            return dt.date.fromisoformat(day)
        except ValueError:
            pass
    raise _bad("date", f"{day!r} is not a YYYY-MM-DD date")


def _as_session(entry: DailySessionEntry | Mapping[str, Any]) -> DailySessionEntry:
    if isinstance(entry, DailySessionEntry):
        return entry.model_copy(deep=True)
    if not isinstance(entry, Mapping):
        raise _bad("entry", f"must be a DailySessionEntry or a mapping, not {type(entry)}")
    try:
        return DailySessionEntry.model_validate(dict(entry))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise _bad(f"entry.{where}", first["msg"]) from None


def _parse_daily(raw: str, day: dt.date) -> DailyMemory | None:
    """The file's content, or None when it is not a valid log for ``day``."""
    try:
        memory = DailyMemory.model_validate_json(raw)
    except ValidationError:
        return None
    return memory if memory.date == day else None
