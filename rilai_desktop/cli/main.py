"""The `rilai` command. Errors print code, message and hints — a traceback only with --debug."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rilai_desktop.cli.parser import SET_DESTS, build_parser, parse_set
from rilai_desktop.errors import NotBuiltYetError, RilaiError
from rilai_desktop.network_audit import begin_session, install

Runner = Callable[[argparse.Namespace], int]  # runs a parsed command (default: dispatch)
if TYPE_CHECKING:
    from rilai_desktop.cli.commands._context import Builders
    from rilai_desktop.paths import Paths


def _has_display() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


SESSION_COMMANDS = frozenset({"window", "shell", "chat", "serve"})


def _is_session(command: str, args: argparse.Namespace) -> bool:
    if command == "serve" and getattr(args, "show_token", False):
        return False
    if command == "daemon":
        return bool(args.daemon_command == "run")
    return command in SESSION_COMMANDS


def endpoint_urls(paths: Paths) -> list[str]:
    """The model endpoints the person added (what `rilai doctor` lists): the only network
    addresses a session may reach (rilai_desktop/network_audit.py)."""
    from rilai_desktop.llm.manifest import TIERS, load_manifest

    manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    return [
        entry.source.url
        for tier in TIERS
        if tier in manifest.tiers
        and (entry := manifest.for_tier(tier)).source.kind == "endpoint"
        and entry.source.url
    ]


def dispatch(args: argparse.Namespace, builders: Builders | None = None) -> int:
    from rilai_desktop.cli.commands._context import Context

    command = args.command
    if command is None:
        command = "window" if _has_display() else "shell"
    if command == "self-test" and getattr(args, "probe", None):
        from rilai_desktop.cli.commands import self_test_cmd

        return self_test_cmd.run_probe(args)  # the Qt child: no settings, no paths
    ctx = Context.create(parse_set(args.set), json=args.json, debug=args.debug, builders=builders)
    if _is_session(command, args):
        # a long-lived session: its network attempts go on record for `rilai doctor`
        paths = ctx.paths
        begin_session(paths.data_dir, command, allowed=lambda: endpoint_urls(paths))
    try:
        if command == "window":
            from rilai_desktop.cli.commands import window_cmd

            return window_cmd.run(args, ctx)
        if command == "shell":
            from rilai_desktop.cli.commands import shell_cmd

            return shell_cmd.run(args, ctx)
        if command == "chat":
            from rilai_desktop.cli.commands import chat_cmd

            return chat_cmd.run(args, ctx)
        if command == "serve":
            from rilai_desktop.cli.commands import serve_cmd

            return serve_cmd.run(args, ctx)
        if command == "synthetic":
            from rilai_desktop.cli.commands import synthetic_cmd

            return synthetic_cmd.run(args, ctx)
        if command == "status":
            from rilai_desktop.cli.commands import status

            return status.run(args, ctx)
        if command == "clear":
            from rilai_desktop.cli.commands import clear

            return clear.run(args, ctx)
        if command == "query":
            from rilai_desktop.cli.commands import query

            return query.run(args, ctx)
        if command == "config":
            from rilai_desktop.cli.commands import config_cmd

            return config_cmd.run(args, ctx)
        if command == "doctor":
            from rilai_desktop.cli.commands import doctor

            return doctor.run(args, ctx)
        if command == "self-test":
            from rilai_desktop.cli.commands import self_test_cmd

            return self_test_cmd.run(args, ctx)
        if command == "models":
            from rilai_desktop.cli.commands import models

            return models.run(args, ctx)
        if command == "memory":
            from rilai_desktop.cli.commands import memory_cmd

            return memory_cmd.run(args, ctx)
        if command == "sense":
            from rilai_desktop.cli.commands import sense_cmd

            return sense_cmd.run(args, ctx)
        if command == "daemon":
            from rilai_desktop.cli.commands import daemon_cmd

            return daemon_cmd.run(args, ctx)
        if command == "nudges":
            from rilai_desktop.cli.commands import nudges_cmd

            return nudges_cmd.run(args, ctx)
        if command == "eval" and args.eval_command == "memory":
            from rilai_desktop.cli.commands import eval_memory

            return eval_memory.run(args, ctx)
        if command == "eval" and args.eval_command == "safety":
            from rilai_desktop.cli.commands import eval_safety

            return eval_safety.command(args, ctx)
        if command == "eval" and args.eval_command == "score":
            from rilai_desktop.cli.commands import eval_score

            return eval_score.run(args, ctx)
        if command == "eval" and args.eval_command == "agents":
            from rilai_desktop.cli.commands import eval_agents

            return eval_agents.run(args, ctx)
        if command == "eval":
            from rilai_desktop.cli.commands import eval_cmd

            return eval_cmd.run(args, ctx)
        if command == "bench":
            if args.name == "daemon":
                from rilai_desktop.cli.bench import daemon as daemon_bench

                return daemon_bench.run(args, ctx)
            if args.name == "llm":
                from rilai_desktop.cli.bench import llm as llm_bench

                return llm_bench.run(args, ctx)
            if args.name == "memory":
                from rilai_desktop.cli.bench import memory as memory_bench

                return memory_bench.run(args, ctx)
            if args.name == "embedding":
                from rilai_desktop.cli.bench import embedding as embedding_bench

                return embedding_bench.run(args, ctx)
            if args.name == "ui":
                from rilai_desktop.cli.bench import ui as ui_bench

                return ui_bench.run(args, ctx)
            if args.name == "api":
                from rilai_desktop.cli.bench import api as api_bench

                return api_bench.run(args, ctx)
            if args.name == "turn":
                from rilai_desktop.cli.bench import turn as turn_bench

                return turn_bench.run(args, ctx)
            from rilai_desktop.cli.bench import eventlog

            return eventlog.run(args, ctx)
    finally:
        ctx.close()
    raise AssertionError(f"unhandled command {command}")


def report_error(exc: RilaiError, *, as_json: bool) -> None:
    if isinstance(exc, NotBuiltYetError) and not as_json:
        print(f"Rilai: {exc.message}")
        for hint in exc.recovery_suggestions:
            print(f"  {hint}")
        return
    if as_json:
        import json

        sys.stdout.write(json.dumps({"error": exc.to_dict()}, indent=2) + "\n")
        return
    print(f"error {exc.code}: {exc.message}", file=sys.stderr)
    for hint in exc.recovery_suggestions:
        print(f"  hint: {hint}", file=sys.stderr)


def _stdout_to_devnull() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real fd (e.g. captured in tests): nothing to flush
        pass


def _valid_unicode(argv: Sequence[str]) -> list[str]:
    """The arguments as valid Unicode. Bytes that are not UTF-8 reach ``sys.argv`` as lone
    surrogates, which no database, file or terminal write takes: each such argument that
    names no existing file has them replaced (U+FFFD), and stderr says so."""
    out: list[str] = []
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            if not os.path.exists(arg):
                arg = arg.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
                print(
                    "note: invalid UTF-8 in an argument was replaced with U+FFFD", file=sys.stderr
                )
        out.append(arg)
    return out


def main(
    argv: Sequence[str] | None = None, builders: Builders | None = None, run: Runner | None = None
) -> int:
    """`rilai`; test seams: ``builders`` (fakes for the engine), ``run`` (instead of dispatch)."""
    install()  # the network audit hook, once per process (network_audit.py)
    parser = build_parser()
    args = parser.parse_args(_valid_unicode(sys.argv[1:] if argv is None else argv))
    args.set = [item for dest in SET_DESTS for item in getattr(args, dest, None) or []]
    debug = bool(args.debug or os.environ.get("RILAI_DEBUG"))
    try:
        code = dispatch(args, builders) if run is None else run(args)
        sys.stdout.flush()  # a reader that went away shows up here, not at interpreter exit
        return code
    except BrokenPipeError:
        # `rilai query events | head`: the reader closed the pipe; that is not our error
        _stdout_to_devnull()
        return 141
    except RilaiError as exc:
        if debug:
            traceback.print_exc()
        report_error(exc, as_json=bool(args.json))
        return 0 if isinstance(exc, NotBuiltYetError) else 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            traceback.print_exc()
        print(f"error RIL-500: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            "  hint: re-run with --debug for the traceback, and please report it", file=sys.stderr
        )
        return 70


if __name__ == "__main__":
    raise SystemExit(main())
