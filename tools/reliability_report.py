"""Gather the reliability proofs' figures into one report (docs/reliability.md).

    python tools/reliability_report.py OUT_DIR REPORT.json [--markdown]

Reads OUT_DIR/<proof>.json as tests/reliability writes them, writes REPORT.json, prints a
table (Markdown with --markdown, for docs/reliability.md) and exits 1 when a proof is
missing or a bar is not met."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# Every proof of issue 30, in the order docs/reliability.md gives them.
PROOFS = (
    "crash",
    "hostile_input",
    "malformed_output",
    "soak",
    "offline",
    "permissions",
    "corruption",
    "threads",
    "two_writers",
    "injection",
)


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict | list):
        text = json.dumps(value, ensure_ascii=False, default=str)
        return text if len(text) <= 80 else text[:77] + "…"
    return str(value)


def gather(out: Path) -> dict[str, Any]:
    proofs: dict[str, Any] = {}
    for name in PROOFS:
        path = out / f"{name}.json"
        if path.exists():
            proofs[name] = json.loads(path.read_text(encoding="utf-8"))
        else:
            proofs[name] = {"proof": name, "passed": False, "missing": True, "figures": {}}
    for path in sorted(out.glob("*.json")):
        if path.stem not in proofs:
            proofs[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    return {
        "passed": all(p.get("passed") for p in proofs.values()),
        "proofs": proofs,
    }


def table(report: dict[str, Any], markdown: bool) -> str:
    rows = [("proof", "result", "figures")]
    for name, proof in report["proofs"].items():
        if proof.get("missing"):
            rows.append((name, "MISSING", "did not run"))
            continue
        failed = [bar for bar, ok in proof.get("bars", {}).items() if not ok]
        result = "pass" if proof.get("passed") else "FAIL: " + ", ".join(failed)
        figures = "; ".join(f"{k} {_short(v)}" for k, v in proof.get("figures", {}).items())
        rows.append((name, f"{result} ({proof.get('scale', '?')})", figures))
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|---|---|---|"]
        lines += [
            "| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows[1:]
        ]
        return "\n".join(lines)
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{r[0]:<{width}}  {r[1]:<14}  {r[2]}" for r in rows)


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, dest = Path(args[0]), Path(args[1])
    report = gather(out)
    dest.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(table(report, "--markdown" in argv))
    print(f"\n{dest}: {'every bar met' if report['passed'] else 'NOT every bar met'}")
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
