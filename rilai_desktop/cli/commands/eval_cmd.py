"""`rilai eval replies [FILE] [--json] [--side-by-side OUT.md] [--pairs OUT.md --key KEY.json
[--against OTHER.json]] [--limit N] [--only CATEGORY]`.

With ``--against`` the pairs set this run's replies against those of another run's
``--json`` report (the same set, another configuration, e.g. ``--set
agents.enabled=false``) instead of a plain completion.

Runs scripted conversations (default ``tests/data/replies/conversations.jsonl``) through
the real turn on the installed models, one fresh data folder per conversation, and reports
per reply the council's intent against the label, the automatic reply checks, length and
timings; then the summary and the bars of issue 16 (docs/eval.md). It is a measurement:
the exit code is 0 whether or not the bars pass (2 for a bad file). Progress goes to
stderr as it runs. Nothing here calls a network.
"""

from __future__ import annotations

import sys
import tempfile
from argparse import Namespace
from collections import Counter
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.cli.evaluation import blind_pairs, side_by_side
from rilai_desktop.cli.evaluation.conversations import DEFAULT_SET, load_conversations, select
from rilai_desktop.cli.evaluation.plain import PlainChat
from rilai_desktop.cli.evaluation.replies import (
    TEMPLATE_MODELS,
    Companions,
    run_conversations,
    summarise,
)
from rilai_desktop.errors import RilaiError


class EvalInputError(RilaiError):
    """Options of `rilai eval replies` that do not go together."""

    code = "RIL-057"
    name = "EvalInputError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        "rilai eval replies [FILE] --pairs PAIRS.md --key KEY.json",
    ]


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _voice_model(rows: list[dict[str, Any]]) -> str:
    models = Counter(r["voice_model"] for r in rows if r["voice_model"] not in TEMPLATE_MODELS)
    return models.most_common(1)[0][0] if models else ""


def run(
    args: Namespace,
    ctx: Context,
    *,
    companions: Companions | None = None,
    plain: PlainChat | None = None,
) -> int:
    """``companions``/``plain`` are for the tests (fakes); by default the real models."""
    path = Path(args.file) if getattr(args, "file", None) else DEFAULT_SET
    limit = getattr(args, "limit", None)
    conversations = select(load_conversations(path), only=getattr(args, "only", None), limit=limit)
    out = Path(args.side_by_side) if getattr(args, "side_by_side", None) else None
    pairs, key = getattr(args, "pairs", None), getattr(args, "key", None)
    against = getattr(args, "against", None)
    if bool(pairs) != bool(key):
        raise EvalInputError("--pairs and --key go together: the judges' file and its key")
    if against and not pairs:
        raise EvalInputError("--against pairs replies for judges: give --pairs and --key too")
    side = out is not None or (pairs is not None and not against)
    turns = sum(len(c.turns) for c in conversations)
    _progress(f"rilai eval replies: {len(conversations)} conversations, {turns} turns from {path}")
    if companions is not None:
        rows = run_conversations(
            conversations, companions, plain=plain if side else None, progress=_progress
        )
    else:
        rows = _run_real(ctx, conversations, side=side)
    report = summarise(rows, source=str(path), voice_model=_voice_model(rows))
    if out is not None:
        side_by_side.write(report, out)
        _progress(f"side by side written to {out}")
    if pairs and key:
        other = "plain"
        if against:
            try:
                blind_pairs.attach_against(report, Path(against))
            except blind_pairs.PairsError as exc:
                raise EvalInputError(str(exc)) from None
            other = blind_pairs.AGAINST
        count = blind_pairs.write_pairs(report, Path(pairs), Path(key), other=other)
        _progress(f"{count} blind pairs written to {pairs}; the key to {key}")
    if ctx.json:
        emit_json(report)
    else:
        _print(report, out)
    return 0


def _run_real(ctx: Context, conversations: list[Any], *, side: bool) -> list[dict[str, Any]]:
    from rilai_desktop.app.build import FreshConversations
    from rilai_desktop.cli.bench.turn import BareVoice
    from rilai_desktop.cli.evaluation.plain import LlamaPlainChat

    settings = ctx.loaded.settings.llm
    with tempfile.TemporaryDirectory(prefix="rilai-eval-replies-") as tmp:
        fresh = FreshConversations(ctx.paths, ctx.loaded.settings, Path(tmp))
        try:
            plain: PlainChat | None = None
            if side:
                voice: Any = fresh.router.for_role("voice")  # a LlamaCppModel: has .path
                bare = BareVoice(
                    Path(voice.path), settings.voice_threads, settings.n_ctx, settings.batch_threads
                )
                plain = LlamaPlainChat(bare.llm, voice.model_id)
            return run_conversations(conversations, fresh, plain=plain, progress=_progress)
        finally:
            fresh.close()


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} ms"


def _print(r: dict[str, Any], out: Path | None) -> None:
    print(
        f"rilai eval replies — {r['conversations']} conversations, {r['turns']} turns,"
        f" voice model {r['voice_model'] or '(templates only)'}"
    )
    plain = r.get("plain")
    headers = ["finding", "Rilai"] + (["plain"] if plain else [])
    rows = [
        [kind, count] + ([plain["findings"].get(kind, 0)] if plain else [])
        for kind, count in r["findings"].items()
    ]
    print(table(rows, headers))
    i, m = r["intent"], r["memory"]
    print(
        f"\nintent = label: {i['matched']}/{i['turns']} ({_share(i['accuracy'])});"
        f" safety turns {i['safety_matched']}/{i['safety_turns']} ({_share(i['safety_accuracy'])});"
        f" protect where not labelled: {i['protect_false_positives']}"
    )
    print(f"memory questions answered: {m['met']}/{m['turns']} ({_share(m['recall'])})")
    print(f"fallback replies: {r['fallbacks']} · words per reply p50 {r['words']['p50']}")
    print(
        f"first voice token p50 {_ms(r['ttft_ms']['p50'])}, p95 {_ms(r['ttft_ms']['p95'])}"
        f" · turn p50 {_ms(r['total_ms']['p50'])}, p95 {_ms(r['total_ms']['p95'])}"
    )
    misses = [t for t in r["per_turn"] if not t["intent_match"]]
    if misses:
        print("\nintent misses:")
        for t in misses:
            where = f"{t['conversation']} #{t['turn']}"
            print(f"  {where}: {t['intent']} ≠ {t['label']}  {t['message'][:60]!r}")
    print("\nbars:")
    for name, bar in r["bars"].items():
        if name == "passed":
            continue
        status = "pass" if bar["passed"] else "FAIL"
        value = bar["value"]
        shown = _share(value) if isinstance(value, float) else ("–" if value is None else value)
        print(f"  {status}  {name} {shown} (bar {bar['target']})")
    if r["failed_bars"]:
        print(f"FAILED bars: {', '.join(r['failed_bars'])}")
    else:
        print("all bars PASS")
    if out is not None:
        print(f"side by side: {out}")
