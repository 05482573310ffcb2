"""Proof 2 of issue 30, hostile input through every `rilai` command that takes text or a
file (rilai_desktop/cli/parser.py), in-process on the fakes (``Builders.engine_parts``).

Each drawn text is passed as the command's text argument, or written to a file (raw bytes
too: invalid UTF-8) whose path the command reads. Clear = exit 0, or a usage error from
argparse (exit 2), or a RilaiError (exit 2, "error RIL-…" with hints); never exit 70 (the
CLI's "unexpected" catch-all: an exception we did not handle), never a traceback, never an
exception out of ``main``. Arguments go after ``--`` where the parser allows, so a text
starting with "-" is a value, not an option.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop import cli
from rilai_desktop.app.build import build_memory
from rilai_desktop.app.core import Core
from rilai_desktop.app.engine import EngineParts
from rilai_desktop.app.memory_bridge import MemoryBridge
from rilai_desktop.cli.commands._context import Builders
from rilai_desktop.llm.fake import ScriptedLLM, agent_answer
from rilai_desktop.turn.factory import build_turn_runner
from tests.fake_engine import VOICE_REPLY, FakeModels
from tests.reliability._strategies import hostile_settings, mixed, record_part
from tests.turn.conftest import PROMPTS


def _fake_parts(core: Core) -> EngineParts:
    voice = ScriptedLLM(default=VOICE_REPLY)
    roles: dict[str, Any] = {
        "agents": ScriptedLLM(default=agent_answer()),
        "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
    }
    models = FakeModels(voice, roles)
    memory = build_memory(core, with_models=False, auto_consolidate=False)
    runner = build_turn_runner(
        events=core.event_log,
        models=models,
        memory=MemoryBridge(memory),
        prompts=PROMPTS,
        use_judge=False,
    )
    runner.warm_next_voice = False
    return EngineParts(core, models, memory, runner)


# argv for a text (``{t}``) or a file (``{f}``); each is one command that reads it
COMMANDS: dict[str, tuple[str, ...]] = {
    "chat": ("chat", "--", "{t}"),
    "sense": ("sense", "--", "{t}"),
    "config set": ("config", "set", "--", "{t}", "{t}"),
    "memory search": ("memory", "search", "--mode", "rag", "--", "{t}"),
    "memory search --batch": ("memory", "search", "--mode", "rag", "--batch", "{f}"),
    "memory list --query": ("memory", "list", "--query", "{t}"),
    "memory show": ("memory", "show", "--", "item", "{t}"),
    "memory edit": ("memory", "edit", "--", "item", "{t}", "{t}"),
    "memory ingest": ("memory", "ingest", "--extract", "rules", "{f}"),
    "memory import": ("memory", "import", "{d}"),
    "memory kb search": ("memory", "kb", "search", "--", "kb_core", "{t}"),
    "memory kb upsert": ("memory", "kb", "upsert", "kb_core", "{f}"),
    "memory category show": ("memory", "category", "show", "--", "{t}"),
    "models use": ("models", "use", "--", "small", "{t}"),
    "nudges snooze": ("nudges", "snooze", "--", "{t}"),
    "nudges simulate --scenario": ("nudges", "simulate", "--hours", "1", "--scenario", "{f}"),
    "query --session": ("query", "events", "--session", "{t}"),
    "synthetic": ("synthetic", "{f}"),
    "eval score": ("eval", "score", "{f}"),
}
file_content = st.one_of(
    mixed.map(lambda t: t.encode("utf-8", errors="surrogatepass")),
    st.binary(max_size=300),
    mixed.map(lambda t: ('{"title": "x", "sessions": [' + t).encode("utf-8", "replace")),
)


def _argv(template: tuple[str, ...], text: str, folder: Path, data: bytes) -> list[str]:
    path = folder / "input.json"
    path.write_bytes(data)
    (folder / "export").mkdir(exist_ok=True)
    (folder / "export" / "memory.json").write_bytes(data)
    subst: dict[str, str] = {"{t}": text, "{f}": str(path), "{d}": str(folder / "export")}
    return [subst.get(part, part) for part in template]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_hostile_input_through_the_cli(
    name: str,
    scale: Any,
    report: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    examples = scale.pick(2, 50)
    builders = Builders(engine_parts=_fake_parts)
    outcomes: Counter[str] = Counter()
    bad: list[str] = []
    start = time.perf_counter()

    @hostile_settings(examples)
    @given(mixed, file_content)
    def run(text: str, data: bytes) -> None:
        argv = _argv(COMMANDS[name], text, tmp_path, data)
        capsys.readouterr()
        try:
            code = cli.main(argv, builders)
        except SystemExit as exc:  # argparse: a usage error, said on stderr
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:
            code = -1
            bad.append(f"{type(exc).__name__}: {exc}"[:200])
        out, err = capsys.readouterr()
        outcomes[f"exit {code}"] += 1
        if code == 70 or "Traceback" in out + err:
            if len(bad) < 10:
                bad.append(f"{text[:40]!r}: {(err or out)[-200:]}")
        elif code not in (-1, 0, 1, 2):
            bad.append(f"exit {code}: {(err or out)[-200:]}")

    run()
    figures = {
        "inputs": sum(outcomes.values()),
        "exits": dict(outcomes),
        "unclear": bad,
        "seconds": round(time.perf_counter() - start, 1),
    }
    _record(report, name, figures, examples, bad)
    assert not bad, bad


CLI: dict[str, dict[str, Any]] = {}


def _record(report: Any, name: str, figures: dict[str, Any], examples: int, bad: list[str]) -> None:
    CLI[name] = figures
    total = sum(f["inputs"] for f in CLI.values())
    unclear = sum(len(f["unclear"]) for f in CLI.values())
    merged = {"commands": len(CLI), "inputs": total, "unclear": unclear, "by_command": dict(CLI)}
    record_part(report, "cli", merged, {"unclear": unclear == 0})
