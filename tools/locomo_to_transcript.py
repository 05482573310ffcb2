"""Convert LoCoMo conversations into `rilai eval memory` files (transcript + questions).

    python tools/locomo_to_transcript.py [--source data/locomo/locomo10.json]
                                         [--out data/locomo] [--ids conv-26 conv-30 ...]

LoCoMo (Maharana et al. 2024, snap-research/LoCoMo, ``data/locomo10.json``) is CC BY-NC 4.0:
it is never committed here. Put the file in ``data/locomo/`` (git-ignored) and run this
script; it writes one ``<sample_id>.json`` per conversation in the transcript format of
``rilai memory ingest`` (docs/memory.md) plus a ``questions`` list::

    {"title": "locomo conv-26 (Caroline & Melanie)", "source": "LoCoMo ...",
     "sessions": [{"id": "session_1", "date": "2023-05-08T13:56:00+00:00",
                   "turns": [{"id": "D1:3", "speaker": "Caroline", "text": "..."}]}],
     "questions": [{"id": "conv-26-q004", "query": "What did Caroline research?",
                    "evidence_turn_ids": ["D2:8"], "type": "multi-hop"}]}

A turn that shares a photo keeps LoCoMo's caption of it in its text ("[shares a photo: a
painting of a sunset over a lake]"), the same text for our side and for the plain
baselines. Question categories (the LoCoMo paper's numbering): 1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop, 5 adversarial. Evidence ids that name no turn of the
conversation (a few LoCoMo labels are malformed, e.g. "D:11:26"; "D8:6; D9:17" is read
as two) are dropped; a question
left with no evidence is skipped and counted.

Development uses the first five conversations only (the default ``--ids``); the other five
are held out (issue 17) and this script converts them only when named explicitly.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO / "data" / "locomo" / "locomo10.json"
DEV_IDS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
SOURCE_NOTE = "LoCoMo (snap-research/LoCoMo, data/locomo10.json), CC BY-NC 4.0"
_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})\s*$", re.I
)


def session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> 2023-05-08T13:56:00+00:00."""
    m = _DATE.match(text)
    if m is None:
        raise ValueError(f"unrecognised LoCoMo session date {text!r}")
    hour, minute, half, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    parsed = datetime.strptime(f"{day} {month} {year}", "%d %B %Y")
    return parsed.replace(hour=h, minute=int(minute), tzinfo=UTC)


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = str(turn.get("blip_caption", "") or "").strip()
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def convert(sample: dict[str, Any]) -> tuple[dict[str, Any], int]:
    conv = sample["conversation"]
    sid = str(sample["sample_id"])
    numbers = sorted(
        int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
    )
    sessions = []
    turn_ids: set[str] = set()
    for n in numbers:
        turns = []
        for t in conv[f"session_{n}"]:
            text = turn_text(t)
            if not text:
                continue
            turns.append({"id": str(t["dia_id"]), "speaker": str(t["speaker"]), "text": text})
            turn_ids.add(str(t["dia_id"]))
        date = session_date(str(conv[f"session_{n}_date_time"]))
        sessions.append({"id": f"session_{n}", "date": date.isoformat(), "turns": turns})
    questions, skipped = [], 0
    for i, qa in enumerate(sample["qa"], 1):
        named = [e for raw in qa.get("evidence", []) for e in re.split(r"[;,\s]+", str(raw))]
        evidence = list(dict.fromkeys(e for e in named if e in turn_ids))
        if not evidence:
            skipped += 1
            continue
        questions.append(
            {
                "id": f"{sid}-q{i:03d}",
                "query": str(qa["question"]),
                "evidence_turn_ids": evidence,
                "type": CATEGORIES.get(int(qa["category"]), str(qa["category"])),
            }
        )
    title = f"locomo {sid} ({conv['speaker_a']} & {conv['speaker_b']})"
    out = {"title": title, "source": SOURCE_NOTE, "sessions": sessions, "questions": questions}
    return out, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_SOURCE.parent)
    parser.add_argument("--ids", nargs="+", default=list(DEV_IDS))
    args = parser.parse_args(argv)
    if not args.source.is_file():
        print(
            f"{args.source} not found: put LoCoMo's data/locomo10.json there"
            " (github.com/snap-research/LoCoMo)",
            file=sys.stderr,
        )
        return 2
    wanted = set(args.ids)
    samples = [s for s in json.loads(args.source.read_text()) if s.get("sample_id") in wanted]
    missing = wanted - {s["sample_id"] for s in samples}
    if missing:
        print(f"not in {args.source}: {sorted(missing)}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for sample in samples:
        data, skipped = convert(sample)
        path = args.out / f"{sample['sample_id']}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        turns = sum(len(s["turns"]) for s in data["sessions"])
        print(
            f"{path}: {len(data['sessions'])} sessions, {turns} turns,"
            f" {len(data['questions'])} questions ({skipped} without usable evidence)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
