"""The understanding corpus (issue 28; docs/eval.md, "The understanding corpus").

    python tools/corpus.py messages            # conversations/*.jsonl -> messages.jsonl (+ split)
    python tools/corpus.py packs [bNN ...]     # messages -> packs/bNN.jsonl for the labelers
    python tools/corpus.py check FILE          # a labeler's (adjudicator's) file: complete?
    python tools/corpus.py agreement [--json]  # labels/bNN.{A,B}.jsonl -> Cohen's kappa
    python tools/corpus.py disputes            # where A and B differ -> disputes/bNN.jsonl
    python tools/corpus.py gold                # agreed + adjudicated/bNN.jsonl -> gold.jsonl
    python tools/corpus.py replies-set         # test conversations for `rilai eval replies`

Writers (tests/data/corpus/WRITING.md) and two independent labelers per message
(GUIDE.md) are helper sessions; a third adjudicates what the two did not agree on. The
split is by conversation, from a hash of its id (70 / 15 / 15 train / dev / test), so it
is the same on every machine and no choice of ours moves a message between parts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rilai_desktop.cli.evaluation.corpus import (  # noqa: E402
    CORPUS_DIR,
    LABEL_INTENTS,
    LabelError,
    agreement_report,
    expand_conversation,
    parse_label,
)
from rilai_desktop.contracts.sensor import SENSOR_NAMES  # noqa: E402

CONVERSATIONS = CORPUS_DIR / "conversations"
MESSAGES = CORPUS_DIR / "messages.jsonl"
PACKS = CORPUS_DIR / "packs"
LABELS = CORPUS_DIR / "labels"
DISPUTES = CORPUS_DIR / "disputes"
ADJUDICATED = CORPUS_DIR / "adjudicated"
GOLD = CORPUS_DIR / "gold.jsonl"
AGREEMENT = CORPUS_DIR / "agreement.json"
TEST_CONVERSATIONS = CORPUS_DIR / "test_conversations.jsonl"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")


def batches() -> list[str]:
    return sorted(p.stem for p in CONVERSATIONS.glob("b*.jsonl"))


def cmd_messages(_: argparse.Namespace) -> int:
    rows: list[dict[str, Any]] = []
    for batch in batches():
        for conv in read_jsonl(CONVERSATIONS / f"{batch}.jsonl"):
            rows.extend(expand_conversation(conv))
    write_jsonl(MESSAGES, rows)
    parts = {s: sum(1 for r in rows if r["split"] == s) for s in ("train", "dev", "test")}
    print(f"{len(rows)} messages from {len(batches())} batches: {parts}")
    return 0


def cmd_packs(args: argparse.Namespace) -> int:
    rows = read_jsonl(MESSAGES)
    for batch in args.batches or batches():
        pack = [
            {"id": r["id"], "context": r["context"], "text": r["text"]}
            for r in rows
            if r["id"].startswith(batch + "-")
        ]
        write_jsonl(PACKS / f"{batch}.jsonl", pack)
        print(f"packs/{batch}.jsonl: {len(pack)} messages")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """A labeler's file against its pack (an adjudicator's against its disputes): every
    message once, in the guide's shape."""
    path = Path(args.file)
    batch = path.name.split(".")[0]  # bNN.A.jsonl, bNN.jsonl, bNN.2.jsonl
    source = DISPUTES if path.parent.name == "adjudicated" else PACKS
    pack = [r["id"] for r in read_jsonl(source / f"{batch}.jsonl")]
    problems = []
    seen = []
    for number, row in enumerate(read_jsonl(path), 1):
        try:
            ident, _, _ = parse_label(row)
        except LabelError as exc:
            problems.append(f"line {number}: {exc}")
            continue
        seen.append(ident)
    missing = [i for i in pack if i not in set(seen)]
    extra = [i for i in seen if i not in set(pack)]
    twice = sorted({i for i in seen if seen.count(i) > 1})
    problems += [f"missing {i}" for i in missing[:20]]
    problems += [f"not in the pack {i}" for i in extra[:20]]
    problems += [f"twice {i}" for i in twice[:20]]
    for line in problems:
        print(line)
    print(f"{path.name}: {len(set(seen))} of {len(pack)} labelled, {len(problems)} problems")
    return 1 if problems else 0


def load_labels(batch: str, labeler: str) -> dict[str, tuple[frozenset[str], str]]:
    path = LABELS / f"{batch}.{labeler}.jsonl"
    out: dict[str, tuple[frozenset[str], str]] = {}
    if not path.is_file():
        return out
    for number, row in enumerate(read_jsonl(path), 1):
        try:
            ident, sensors, intent = parse_label(row)
        except LabelError as exc:
            raise SystemExit(f"{path.name}:{number}: {exc}") from exc
        out[ident] = (sensors, intent)
    return out


def first_labeler(batch: str) -> dict[str, tuple[frozenset[str], str]]:
    """Labeler A's labels — or C's, where a C file exists: a second session started when
    A's had not come back in time (b03); C never saw A's or B's labels."""
    if (LABELS / f"{batch}.C.jsonl").is_file():
        return load_labels(batch, "C")
    return load_labels(batch, "A")


def paired() -> list[tuple[str, tuple[frozenset[str], str], tuple[frozenset[str], str]]]:
    pairs = []
    for batch in batches():
        a, b = first_labeler(batch), load_labels(batch, "B")
        pairs.extend((i, a[i], b[i]) for i in a if i in b)
    return pairs


def cmd_agreement(args: argparse.Namespace) -> int:
    pairs = paired()
    if not pairs:
        print("no message has two labels yet")
        return 1
    report = agreement_report([(x, y) for _, x, y in pairs])
    AGREEMENT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['messages']} messages with two labels")
    print(f"{'label':<20} {'kappa':>6} {'agree':>6} {'A yes':>6} {'B yes':>6}")
    for name, item in report["labels"].items():
        print(
            f"{name:<20} {item['kappa']:>6.3f} {item['agreement']:>6.3f} "
            f"{item.get('a_positive', ''):>6} {item.get('b_positive', ''):>6}"
        )
    return 0


def cmd_disputes(_: argparse.Namespace) -> int:
    messages = {r["id"]: r for r in read_jsonl(MESSAGES)}
    for batch in batches():
        a, b = first_labeler(batch), load_labels(batch, "B")
        out = []
        for ident in sorted(set(a) & set(b), key=lambda i: list(messages).index(i)):
            (sa, ia), (sb, ib) = a[ident], b[ident]
            sensors = sorted(sa ^ sb, key=SENSOR_NAMES.index)
            if not sensors and ia == ib:
                continue
            row = messages[ident]
            dispute: dict[str, Any] = {"id": ident, "context": row["context"], "text": row["text"]}
            dispute["agreed_sensors"] = sorted(sa & sb, key=SENSOR_NAMES.index)
            dispute["disputed_sensors"] = sensors
            dispute["intent_options"] = sorted({ia, ib}) if ia != ib else [ia]
            out.append(dispute)
        if out:
            write_jsonl(DISPUTES / f"{batch}.jsonl", out)
        print(f"disputes/{batch}.jsonl: {len(out)} of {len(set(a) & set(b))} messages")
    return 0


def cmd_gold(_: argparse.Namespace) -> int:
    messages = read_jsonl(MESSAGES)
    gold: list[dict[str, Any]] = []
    missing = 0
    for batch in batches():
        a, b = first_labeler(batch), load_labels(batch, "B")
        decided: dict[str, dict[str, Any]] = {}
        # the adjudicator's file; a second adjudicator's (.2, started when the first had not
        # come back in time) fills what the first has not decided
        for path in (ADJUDICATED / f"{batch}.jsonl", ADJUDICATED / f"{batch}.2.jsonl"):
            if path.is_file():
                for r in read_jsonl(path):
                    decided.setdefault(r["id"], r)
        for row in messages:
            ident = row["id"]
            if not ident.startswith(batch + "-") or ident not in a or ident not in b:
                continue
            (sa, ia), (sb, ib) = a[ident], b[ident]
            if sa == sb and ia == ib:
                sensors, intent, how = sa, ia, "agreed"
            elif ident in decided:
                _, chosen, intent = parse_label(decided[ident])
                disputed = sa ^ sb
                sensors = (sa & sb) | (chosen & disputed)
                how = "adjudicated"
            else:
                missing += 1
                continue
            if intent not in LABEL_INTENTS:
                raise SystemExit(f"{ident}: intent {intent!r}")
            gold.append(
                {
                    **{k: row[k] for k in ("id", "conv", "lang", "context", "text", "split")},
                    "sensors": sorted(sensors, key=SENSOR_NAMES.index),
                    "intent": intent,
                    "how": how,
                }
            )
    write_jsonl(GOLD, gold)
    print(f"gold.jsonl: {len(gold)} messages ({missing} disputed, not yet adjudicated)")
    return 0


def cmd_replies_set(_: argparse.Namespace) -> int:
    """The test part's conversations in `rilai eval replies` format, with the gold intents:
    the set the blind judging runs on (never tuned on). Ordered by a hash of the id, so the
    first N (``--limit N``) mix every batch and language."""
    gold = {r["id"]: r for r in read_jsonl(GOLD)}
    out = []
    for batch in batches():
        for conv in read_jsonl(CONVERSATIONS / f"{batch}.jsonl"):
            rows = expand_conversation(conv)
            if rows[0]["split"] != "test" or not all(r["id"] in gold for r in rows):
                continue
            turns = [
                {"user": r["text"], "intent": gold[r["id"]]["intent"], "category": conv["lang"]}
                for r in rows
            ]
            out.append({"id": conv["conv"], "category": f"corpus-{conv['lang']}", "turns": turns})
    out.sort(key=lambda c: hashlib.sha256(c["id"].encode()).hexdigest())
    write_jsonl(TEST_CONVERSATIONS, out)
    print(f"{TEST_CONVERSATIONS.name}: {len(out)} test conversations")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("messages").set_defaults(fn=cmd_messages)
    packs = sub.add_parser("packs")
    packs.add_argument("batches", nargs="*")
    packs.set_defaults(fn=cmd_packs)
    check = sub.add_parser("check")
    check.add_argument("file")
    check.set_defaults(fn=cmd_check)
    agree = sub.add_parser("agreement")
    agree.add_argument("--json", action="store_true")
    agree.set_defaults(fn=cmd_agreement)
    sub.add_parser("disputes").set_defaults(fn=cmd_disputes)
    sub.add_parser("gold").set_defaults(fn=cmd_gold)
    sub.add_parser("replies-set").set_defaults(fn=cmd_replies_set)
    args = parser.parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":
    sys.exit(main())
