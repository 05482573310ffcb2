"""Step 3: ~1,000 user turns through ``ingest_sessions(mode="rules")`` into a fresh memory,
as drafts embedded per second, beside bare ``encode`` of the same draft texts."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.cli.bench.memory.common import (
    BATCH_SIZE,
    INGEST_BAR,
    SESSION_TURNS,
    BareEncoder,
    Progress,
    encoded_count,
    open_memory,
)
from rilai_desktop.cli.bench.memory.corpus import NAMES
from rilai_desktop.config import Settings
from rilai_desktop.memory.extraction import RuleExtractor, extract_drafts
from rilai_desktop.memory.turn_records import with_records
from rilai_desktop.memory.types import Turn


def _draft_texts(sessions: Sequence[Sequence[Turn]]) -> list[list[str]]:
    """Per session, the draft texts our ingest will embed (new ones only: the cache)."""
    rules = RuleExtractor()
    seen: set[str] = set()
    out: list[list[str]] = []
    for turns in sessions:
        drafts, _ = extract_drafts(turns, "rules", rules=rules, llm=None)
        drafts = with_records(turns, drafts)  # each turn's record, as ingest stores it
        texts: list[str] = []
        for d in drafts:
            if d.content not in seen:
                seen.add(d.content)
                texts.append(d.content)
        out.append(texts)
    return out


def bench_ingest(
    settings: Settings,
    root: Path,
    turns: Sequence[Turn],
    repeats: int,
    progress: Progress,
) -> dict[str, Any]:
    sessions = [turns[i : i + SESSION_TURNS] for i in range(0, len(turns), SESSION_TURNS)]
    per_session = _draft_texts(sessions)
    texts = [t for s in per_session for t in s]
    warm = [f"Warm-up sentence number {i} about {NAMES[i % len(NAMES)]}." for i in range(64)]
    best: dict[str, float] = {"ours": 0.0, "bare": 0.0, "bare_sessions": 0.0}
    ours_secs: list[float] = []
    ours_count = 0
    label = ""
    for r in range(repeats):
        progress(f"ingest: repeat {r + 1}/{repeats} ({len(turns)} turns, {len(texts)} drafts)")
        mem = open_memory(settings, root, f"ingest-{r}")
        try:
            manager = mem.manager
            bare = BareEncoder(manager, settings)
            label = bare.label
            manager.embed(warm[:32])  # load and warm our path (texts never used again)
            bare.encode(warm[32:])
            steps = ["ours", "bare", "bare_sessions"]
            if r % 2:
                steps.reverse()
            for step in steps:
                before = encoded_count(manager)
                t0 = time.perf_counter()
                if step == "ours":
                    manager.ingest_sessions(
                        [(chunk, {"session": f"s{j}"}) for j, chunk in enumerate(sessions)],
                        mode="rules",
                    )
                elif step == "bare":
                    bare.encode(texts, batch_size=BATCH_SIZE)
                else:
                    for chunk_texts in per_session:
                        if chunk_texts:
                            bare.encode(chunk_texts, batch_size=BATCH_SIZE)
                secs = time.perf_counter() - t0
                count = len(texts)
                if step == "ours":
                    count = ours_count = encoded_count(manager) - before
                    ours_secs.append(secs)
                best[step] = max(best[step], count / secs)
        finally:
            mem.close()
    ratio = best["ours"] / best["bare"] if best["bare"] > 0 else 0.0
    return {
        "turns": len(turns),
        "sessions": len(sessions),
        "session_turns": SESSION_TURNS,
        "batch_size": BATCH_SIZE,
        "repeats": repeats,
        "drafts_ours": ours_count,
        "drafts_bare": len(texts),
        "ours_texts_per_s": round(best["ours"], 1),
        "bare_texts_per_s": round(best["bare"], 1),
        "bare_per_session_texts_per_s": round(best["bare_sessions"], 1),
        "ours_best_s": round(min(ours_secs), 3) if ours_secs else None,
        "ratio": round(ratio, 3),
        "ratio_vs_per_session": round(best["ours"] / best["bare_sessions"], 3)
        if best["bare_sessions"] > 0
        else 0.0,
        "bare_encoder": label,
        "bar": INGEST_BAR,
        "pass": ratio >= INGEST_BAR,
    }
