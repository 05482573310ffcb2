"""``memory.md``: what Rilai knows about the person, in prose, beside the JSON export.

Written for a person to read (and for nothing to parse: import reads the JSON only).
Sections follow the memory browser: what Rilai knows about you (user facts), memories
(items by category; the per-turn records are only counted), episodes, goals and open
threads, pinned entries, categories (links to their pages) and the knowledge bases.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from rilai_desktop.memory.transfer.schema import MemoryExport
from rilai_desktop.memory.types import TURN_KIND


def _day(moment: datetime | None) -> str:
    return "" if moment is None else moment.date().isoformat()


def _title(name: str) -> str:
    return name.replace("_", " ").capitalize()


def render_readable(export: MemoryExport, pages: dict[str, str]) -> str:
    out: list[str] = [
        "# What Rilai knows about you",
        "",
        f"Exported {export.exported_at.isoformat(timespec='seconds')} by Rilai"
        f" {export.app_version}. The complete export is `rilai-memory.json` beside this"
        " file (format version"
        f" {export.version}); entries you paused are not in it.",
        "",
    ]
    pinned = {(p.kind, p.entry_id) for p in export.pinned}

    def mark(kind: str, entry_id: str) -> str:
        return " (pinned)" if (kind, entry_id) in pinned else ""

    out += ["## About you", ""]
    if not export.user_facts:
        out += ["*Nothing yet.*", ""]
    by_cat: dict[str, list[str]] = defaultdict(list)
    for f in export.user_facts:
        seen = "once" if f.evidence_count == 1 else f"{f.evidence_count} times"
        by_cat[f.category].append(
            f"- {f.text} — seen {seen}, since {_day(f.first_observed)}{mark('fact', f.id)}"
        )
    for cat in sorted(by_cat):
        out += [f"### {_title(cat)}", "", *by_cat[cat], ""]

    facts = [i for i in export.items if i.kind != TURN_KIND]
    records = len(export.items) - len(facts)
    out += ["## Memories", ""]
    if not facts:
        out += ["*Nothing yet.*", ""]
    items_by_cat: dict[str, list[str]] = defaultdict(list)
    for i in facts:
        old = f" (no longer true since {_day(i.invalid_at)})" if i.invalid_at else ""
        items_by_cat[i.category or "uncategorised"].append(
            f"- {i.text} — {_day(i.created_at)}{old}{mark('item', i.item_id)}"
        )
    for cat in sorted(items_by_cat):
        out += [f"### {_title(cat)}", "", *items_by_cat[cat], ""]
    if records:
        out += [f"Also {records} record(s) of what you said, turn by turn (in the JSON).", ""]

    out += ["## Episodes", ""]
    out += [f"- {_day(e.timestamp)}: {e.text}{mark('episode', e.id)}" for e in export.episodes] or [
        "*None yet.*"
    ]
    out += ["", "## Goals and open threads", ""]
    goal_lines = []
    for g in export.goals:
        what = "open thread" if g.kind == "open_thread" else "goal"
        due = f", due {_day(g.deadline)}" if g.deadline else ""
        goal_lines.append(f"- {g.text} ({what}, {g.status}{due}){mark('goal', g.id)}")
    out += goal_lines or ["*None yet.*"]
    out += ["", "## Categories", ""]
    out += [
        f"- [{_title(c.name)}]({c.file}) — {c.description}"
        for c in export.categories
        if c.name in pages
    ] or ["*None yet.*"]
    out += ["", "## Knowledge bases", ""]
    kb_counts: dict[str, int] = defaultdict(int)
    for p in export.knowledge_bases:
        kb_counts[p.kb] += 1
    out += [f"- {kb}: {n} document(s)" for kb, n in sorted(kb_counts.items())] or ["*None.*"]
    return "\n".join(out).rstrip() + "\n"
