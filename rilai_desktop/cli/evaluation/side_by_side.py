"""`rilai eval replies --side-by-side OUT.md`: each reply beside the plain completion's.

A file for a person to read: per conversation, per turn, the message, Rilai's reply (with
the council's intent against the label, its findings, time) and the plain completion's
reply (its findings, time). Nothing is scored here; the JSON report has the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.cli.evaluation.plain import PLAIN_SYSTEM


def _quote(text: str) -> str:
    if not text.strip():
        return "> *(silent)*"
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.strip().splitlines())


def _findings(findings: Sequence[dict[str, Any]]) -> str:
    if not findings:
        return "no findings"
    return "findings: " + ", ".join(f"**{f['kind']}**" for f in findings)


def _seconds(ms: float | None) -> str:
    return "–" if ms is None else f"{ms / 1000:.1f} s"


def _turn(row: dict[str, Any]) -> list[str]:
    mark = "✓" if row["intent_match"] else f"✗ (label {row['label']})"
    rilai = [
        f"intent {row['intent']} {mark}",
        _findings(row["findings"]),
        f"first token {_seconds(row['ttft_ms'])}, total {_seconds(row['total_ms'])}",
    ]
    if row["fallback"]:
        rilai.append("fallback reply")
    if row["expect"]:
        rilai.append(
            f"expects {' / '.join(row['expect'])}: {'met' if row['expect_met'] else 'MISSED'}"
        )
    lines = [
        f"### Turn {row['turn']} — label *{row['label']}*",
        "",
        _quote(row["message"]),
        "",
        f"**Rilai** ({'; '.join(rilai)})",
        "",
        _quote(row["reply"]),
        "",
    ]
    plain = row.get("plain")
    if plain is not None:
        info = [_findings(plain["findings"]), f"total {_seconds(plain['total_ms'])}"]
        if plain.get("expect_met") is not None:
            info.append(f"expect {'met' if plain['expect_met'] else 'MISSED'}")
        lines += [f"**Plain** ({'; '.join(info)})", "", _quote(plain["reply"]), ""]
    return lines


def render(report: dict[str, Any]) -> str:
    """The markdown for a report made with a plain side (``summarise`` output)."""
    rows: list[dict[str, Any]] = report["per_turn"]
    plain = report.get("plain") or {}
    plain_memory = plain.get("memory", {})
    lines = [
        "# Rilai beside a plain completion",
        "",
        f"Set `{report['set']}` · {report['conversations']} conversations,"
        f" {report['turns']} turns · voice model `{report['voice_model']}`.",
        "",
        "The plain side is one chat completion of the same voice model per message, with"
        " this system prompt and the conversation as it led it:",
        "",
        _quote(PLAIN_SYSTEM),
        "",
        "| | Rilai | plain |",
        "|---|---|---|",
        f"| replies with findings | {report['replies_with_findings']}"
        f" | {plain.get('replies_with_findings', '–')} |",
        f"| memory questions answered | {report['memory']['met']}/{report['memory']['turns']}"
        f" | {plain_memory.get('met', '–')}/{plain_memory.get('turns', '–')} |",
        f"| total time p50 | {_seconds(report['total_ms']['p50'])}"
        f" | {_seconds(plain.get('total_ms', {}).get('p50'))} |",
        "",
        f"Council intent = label on {report['intent']['matched']}/{report['intent']['turns']}"
        " turns.",
        "",
    ]
    current = None
    for row in rows:
        if row["conversation"] != current:
            current = row["conversation"]
            lines += [f"## {current} ({row['conversation_category']})", ""]
        lines += _turn(row)
    return "\n".join(lines).rstrip() + "\n"


def write(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report), encoding="utf-8")
