"""The texts `rilai bench embedding` compares the two MiniLM paths on.

* ``sample``: every string of two words or more inside the JSON Lines files under
  ``tests/data`` (messages, replies, memory notes, safety and sensor rows, corpus turns),
  de-duplicated, taken round-robin across the files in path order so that no one file
  dominates — deterministic.
* ``long``: texts well over the model's 256-token limit (sample texts joined until they
  reach ~2,000 characters, one of a single repeated word, one of 20,000 characters), where
  the truncation of the two paths must agree.
* ``unicode``: accents, CJK, Arabic, emoji (with skin tone and ZWJ sequences), combining
  marks, zero-width and control characters, mathematical letters, a lone word of each.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from rilai_desktop.paths import REPO_ROOT

DATA_DIR: Final[Path] = REPO_ROOT / "tests" / "data"
MIN_WORDS: Final[int] = 2

UNICODE: Final[tuple[str, ...]] = (
    "Café crème, naïve façade, Ångström, Øresund, żółć",
    "今日はとても疲れました。明日は休みたい。",
    "我今天很难过，不想和任何人说话。",
    "오늘 정말 행복했어요",
    "أشعر بالوحدة هذه الأيام",
    "Мне сегодня грустно, но я справлюсь.",
    "I'm so happy today 😀🎉🎂 (and a bit tired 😴)",
    "👩🏽‍💻 working late again 👨‍👩‍👧‍👦",
    "❤️🔥✨",
    "e\u0301 combining acute, a\u0308 combining diaeresis",
    "zero\u200bwidth\u200dspaces\ufeffand a soft\u00adhyphen",
    "tab\tand\nnew line\r\nand a bell\x07 and a null\x00 inside",
    "𝓗𝓮𝓵𝓵𝓸 𝔀𝓸𝓻𝓵𝓭 in mathematical script",
    "ﬁne ligatures ﬂow ＦＵＬＬＷＩＤＴＨ letters",
    "עברית מימין לשמאל",
    "हिन्दी में लिखा हुआ वाक्य",
    "🙂",
    "é",
    "中",
    "   leading and trailing spaces   ",
)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if len(value.split()) >= MIN_WORDS and any(c.isalpha() for c in value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _file_texts(path: Path) -> list[str]:
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            out.extend(_strings(json.loads(line)))
        except ValueError:
            continue
    return out


def sample_texts(limit: int = 600, data_dir: Path = DATA_DIR) -> list[str]:
    """Up to ``limit`` distinct texts, round-robin across the JSON Lines files."""
    queues = [_file_texts(p) for p in sorted(data_dir.rglob("*.jsonl"))]
    seen: set[str] = set()
    out: list[str] = []
    depth = 0
    while len(out) < limit and any(depth < len(q) for q in queues):
        for queue in queues:
            if depth < len(queue) and queue[depth] not in seen and len(out) < limit:
                seen.add(queue[depth])
                out.append(queue[depth])
        depth += 1
    return out


def long_texts(sample: list[str], count: int = 12) -> list[str]:
    """Texts far beyond 256 tokens: joined sample texts, one repeated word, one of 20K chars."""
    out: list[str] = []
    for start in range(count):
        parts: list[str] = []
        i = start * 7
        while sum(len(p) + 1 for p in parts) < 2000 and sample:
            parts.append(sample[i % len(sample)])
            i += 1
        out.append(" ".join(parts))
    out.append("remember " * 600)
    out.append(("The garden was quiet after the rain. " * 600)[:20_000])
    return out
