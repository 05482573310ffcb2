"""Check a batch of written conversations (tests/data/corpus/WRITING.md).

    python tools/corpus_check.py tests/data/corpus/conversations/b03.jsonl

Prints one line per problem and a count; exits 1 when there is a problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LANGS = {"en", "es", "pt", "fr", "de"}
USER_TURNS = 4


def problems(path: Path) -> tuple[list[str], int]:
    found: list[str] = []
    seen: set[str] = set()
    count = 0
    prefix = path.stem
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            found.append(f"{where}: not JSON ({exc.msg})")
            continue
        conv = row.get("conv")
        if not isinstance(conv, str) or not conv.startswith(prefix + "-c"):
            found.append(f"{where}: conv must look like {prefix}-c001")
        elif conv in seen:
            found.append(f"{where}: conv {conv} twice")
        seen.add(str(conv))
        if row.get("lang") not in LANGS:
            found.append(f"{where}: lang must be one of {sorted(LANGS)}")
        turns = row.get("turns")
        if not isinstance(turns, list) or len(turns) != 2 * USER_TURNS - 1:
            found.append(f"{where}: turns must hold {2 * USER_TURNS - 1} turns")
            continue
        for i, turn in enumerate(turns):
            role = "user" if i % 2 == 0 else "rilai"
            if not isinstance(turn, dict) or turn.get("role") != role:
                found.append(f"{where}: turn {i + 1} must have role {role}")
            elif not isinstance(turn.get("text"), str) or not turn["text"].strip():
                found.append(f"{where}: turn {i + 1} has no text")
        extra = set(row) - {"conv", "lang", "turns"}
        if extra:
            found.append(f"{where}: unexpected keys {sorted(extra)}")
        count += 1
    return found, count


def main() -> int:
    bad = 0
    for name in sys.argv[1:]:
        found, count = problems(Path(name))
        for line in found:
            print(line)
        messages = count * USER_TURNS
        print(f"{name}: {count} conversations, {messages} messages, {len(found)} problems")
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
