"""`rilai bench embedding`'s texts, its choice among rounds and its report (no model loads;
the comparison itself on the real weights: tests/e2e/test_embedding_onnx_real.py)."""

from __future__ import annotations

from typing import Any

import pytest

from rilai_desktop.cli.bench.embedding import _best, print_report
from rilai_desktop.cli.bench.embedding_texts import UNICODE, long_texts, sample_texts
from rilai_desktop.cli.parser import build_parser


def test_the_sample_is_500_or_more_distinct_varied_texts_always_the_same() -> None:
    texts = sample_texts(600)
    assert len(texts) == 600 == len(set(texts))
    assert texts == sample_texts(600)
    assert all(len(t.split()) >= 2 for t in texts)
    assert len({len(t) // 20 for t in texts}) >= 8  # short and long messages alike


def test_long_texts_are_far_past_the_token_limit() -> None:
    longs = long_texts(sample_texts(100))
    assert len(longs) >= 10
    assert all(len(t) >= 1500 for t in longs)  # 256 tokens are ~1,000 characters of English
    assert any(not t.isascii() for t in UNICODE)


def run(backend: str, p50: float, batch: float, **extra: Any) -> dict[str, Any]:
    return {
        "backend": backend,
        "threads": 1,
        "load_s": 0.5,
        "torch_imported": False,
        "rss_mb": {"start": 50, "loaded": 175, "after": 280},
        "per_text_ms": {"p50": p50, "mean": p50 + 1},
        "per_batch32_ms": {"mean": batch, "batches": 18},
        **extra,
    }


def test_the_fastest_round_is_kept_and_a_failed_one_ignored() -> None:
    best = _best([run("onnx", 12.0, 400.0), {"error": "boom"}, run("onnx", 9.0, 450.0)])
    assert best["per_text_ms"]["p50"] == 9.0
    assert best["per_batch32_ms"]["mean"] == 400.0
    assert best["rounds"] == 2


def test_the_report_says_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    group = {"texts": 600, "min": 0.9999996, "mean": 1.0, "below_bar": 0, "max_abs_diff": 2.5e-7}
    rep = {
        "parity": {
            "groups": {"sample": group},
            "worst": {"cosine": 0.9999996, "text": "hello"},
            "truncation": {
                "texts": 14,
                "token_ids_differ": 0,
                "tokens": [256],
                "max_seq_length": 256,
            },
            "raw_empty": {"''": 1.0},
            "holds": True,
        },
        "speed": [
            run("torch", 16.0, 510.0, rounds=2),
            {"backend": "onnx", "threads": 2, "error": "no session"},
        ],
        "sizes": {
            "torch_path": {"total_mb": 1173.6, "each_mb": {"torch": 756.6}},
            "onnx_path": {"total_mb": 94.6, "each_mb": {"onnxruntime": 80.2}},
        },
        "load_average": [2.0, 3.0],
        "cpus": 2,
    }
    print_report(rep)
    out = capsys.readouterr().out
    for needle in (
        "min 0.9999996",
        "token ids differ on 0",
        "per batch of 32 510.0 ms",
        "best of 2",
        "torch imported: no",
        "onnx  x2: failed: no session",
        "onnx_path: 94.6 MB",
    ):
        assert needle in out


def test_the_bench_is_a_rilai_bench_name() -> None:
    assert build_parser().parse_args(["bench", "embedding"]).name == "embedding"
