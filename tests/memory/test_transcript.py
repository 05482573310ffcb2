"""The transcript loader alone: shape, encodings, limits, ids and dates (no database)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.errors import MemoryInputError, TranscriptError
from rilai_desktop.memory.transcript import (
    MAX_TURN_CHARS,
    Transcript,
    load_transcript,
    parse_transcript,
    sessions_in_date_order,
)


def turn(tid: str, text: str = "I like tea.", speaker: str = "Mia") -> dict[str, Any]:
    return {"id": tid, "speaker": speaker, "text": text}


def session(sid: str, date: Any, *turns: dict[str, Any]) -> dict[str, Any]:
    return {"id": sid, "date": date, "turns": list(turns) or [turn(f"{sid}-t1")]}


def doc(*sessions: dict[str, Any], title: str = "T") -> dict[str, Any]:
    return {"title": title, "sessions": list(sessions)}


def write(tmp_path: Path, data: Any, name: str = "t.json") -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def error_of(tmp_path: Path, data: Any) -> TranscriptError:
    with pytest.raises(TranscriptError) as info:
        load_transcript(write(tmp_path, data))
    return info.value


# ── the happy path ─────────────────────────────────────────────────────────────


def test_loads_a_valid_transcript(tmp_path: Path) -> None:
    data = doc(
        session("s1", "2024-03-01T09:30:00+01:00", turn("a", "hi"), turn("b", "hello", "Rilai")),
        session("s2", "2024-03-02", turn("c")),
        title="A week",
    )
    t = load_transcript(write(tmp_path, data))
    assert isinstance(t, Transcript)
    assert t.title == "A week"
    assert [s.id for s in t.sessions] == ["s1", "s2"]
    assert [(x.id, x.speaker, x.text) for x in t.sessions[0].turns] == [
        ("a", "Mia", "hi"),
        ("b", "Rilai", "hello"),
    ]
    assert t.turn_count == 3


def test_unicode_survives_exactly(tmp_path: Path) -> None:
    texts = [
        "Ich mag Grüntee 🍵 — sehr!",
        "שלום, אני גרה בתל אביב",  # right-to-left
        "e\u0301 combining, 中文, 日本語, \u200b zero-width",
        "emoji family 👩‍👩‍👧 and 🏳️‍🌈",
    ]
    data = doc(session("s", "2024-01-01", *[turn(f"t{i}", x) for i, x in enumerate(texts)]))
    t = load_transcript(write(tmp_path, data))
    assert [x.text for x in t.sessions[0].turns] == texts


def test_escaped_unicode_and_a_bom_are_fine(tmp_path: Path) -> None:
    raw = json.dumps(doc(session("s", "2024-01-01", turn("a", "caf\u00e9 \U0001f375"))))
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + raw.encode("ascii"))  # ensure_ascii: \u escapes
    assert load_transcript(path).sessions[0].turns[0].text == "café 🍵"


def test_extra_keys_are_ignored(tmp_path: Path) -> None:
    data = doc(session("s", "2024-01-01", {**turn("a"), "evidence": ["q1"]}))
    data["version"] = 2
    t = load_transcript(write(tmp_path, data))
    assert t.sessions[0].turns[0].id == "a"


def test_turn_text_at_the_limit_is_accepted(tmp_path: Path) -> None:
    text = "x" * MAX_TURN_CHARS
    t = load_transcript(write(tmp_path, doc(session("s", "2024-01-01", turn("a", text)))))
    assert len(t.sessions[0].turns[0].text) == MAX_TURN_CHARS


def test_the_error_is_a_memory_input_error_and_a_value_error(tmp_path: Path) -> None:
    err = error_of(tmp_path, "{")
    assert isinstance(err, MemoryInputError)
    assert isinstance(err, ValueError)
    assert err.code == "RIL-041"
    assert err.recovery_suggestions
    assert err.context["path"] == str(tmp_path / "t.json")


# ── files that are not transcripts ─────────────────────────────────────────────


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="no such file"):
        load_transcript(tmp_path / "nope.json")


def test_a_directory(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="is a directory"):
        load_transcript(tmp_path)


@pytest.mark.parametrize(
    "junk",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8",  # an image header
        bytes(range(256)),
        b"\xff\xfe{\x00}\x00",  # UTF-16
    ],
)
def test_binary_junk(tmp_path: Path, junk: bytes) -> None:
    err = error_of(tmp_path, junk)
    assert "not UTF-8" in err.message or "NUL" in err.message


def test_nul_bytes_in_valid_utf8(tmp_path: Path) -> None:
    assert "NUL" in error_of(tmp_path, b'{"title": "a\x00b"}').message


@pytest.mark.parametrize("content", ["", "   \n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    assert "empty" in error_of(tmp_path, content).message


def test_not_json_names_line_and_column(tmp_path: Path) -> None:
    err = error_of(tmp_path, '{"title": "x",\n "sessions": [}')
    assert "not JSON" in err.message
    assert "line 2 column" in err.message


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], "(top level): expected an object, got a list"),
        ("just a string", "(top level): expected an object, got a string"),
        (None, "(top level): expected an object, got null"),
        ({"sessions": []}, "title: field required"),
        ({"title": "t"}, "sessions: field required"),
        ({"title": "t", "sessions": {}}, "sessions: expected a list"),
        ({"title": "t", "sessions": []}, "sessions: the transcript has no sessions"),
        ({"title": 3, "sessions": [session("s", "2024-01-01")]}, "title: expected a string"),
    ],
)
def test_top_level_shape(tmp_path: Path, data: Any, expected: str) -> None:
    path = write(tmp_path, json.dumps(data))
    with pytest.raises(TranscriptError) as info:
        load_transcript(path)
    assert expected in info.value.message


# ── sessions and turns ─────────────────────────────────────────────────────────


def _nested(bad_turn: Any) -> dict[str, Any]:
    good = [turn(f"g{i}") for i in range(5)]
    return doc(
        session("s0", "2024-01-01"),
        session("s1", "2024-01-02"),
        {"id": "s2", "date": "2024-01-03", "turns": [*good, bad_turn]},
    )


@pytest.mark.parametrize(
    ("bad_turn", "expected"),
    [
        ({"id": "x", "speaker": "Mia"}, "sessions[2].turns[5].text: field required"),
        ({"id": "x", "text": "hi"}, "sessions[2].turns[5].speaker: field required"),
        ({"speaker": "Mia", "text": "hi"}, "sessions[2].turns[5].id: field required"),
        (turn("x", ""), "sessions[2].turns[5].text: empty text"),
        (turn("x", " \n\t "), "sessions[2].turns[5].text: empty text"),
        (turn("x", "y" * (MAX_TURN_CHARS + 1)), "sessions[2].turns[5].text: text has 100,001"),
        ({"id": 7, "speaker": "Mia", "text": "hi"}, "sessions[2].turns[5].id: expected a string"),
        ({"id": "x", "speaker": "Mia", "text": ["hi"]}, "sessions[2].turns[5].text: expected a"),
        (turn("x", speaker=""), "sessions[2].turns[5].speaker: must not be empty"),
        ("hello", "sessions[2].turns[5]: expected an object"),
        (turn("x", "bad \ud800 surrogate"), "sessions[2].turns[5].text: contains a lone surrogate"),
        (turn("x", "nul \x00 inside"), "sessions[2].turns[5].text: contains a NUL character"),
    ],
)
def test_bad_turns_name_their_place(tmp_path: Path, bad_turn: Any, expected: str) -> None:
    data = _nested(bad_turn)
    # json.dumps writes \ud800 and \u0000 as escapes, so the file itself is valid UTF-8
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TranscriptError) as info:
        load_transcript(path)
    assert expected in info.value.message, info.value.message


@pytest.mark.parametrize(
    ("bad_session", "expected"),
    [
        ({"id": "s", "date": "2024-01-01", "turns": []}, "sessions[1].turns: a session needs"),
        ({"id": "s", "date": "2024-01-01"}, "sessions[1].turns: field required"),
        ({"id": "s", "turns": [turn("z")]}, "sessions[1].date: field required"),
        ({"date": "2024-01-01", "turns": [turn("z")]}, "sessions[1].id: field required"),
        (session("s", "yesterday", turn("z")), "sessions[1].date: 'yesterday' is not an ISO"),
        (session("s", "2024-02-30", turn("z")), "sessions[1].date: '2024-02-30' is not an ISO"),
        (session("s", 1709280000, turn("z")), "sessions[1].date: expected an ISO-8601 date"),
        (session("s", None, turn("z")), "sessions[1].date: expected an ISO-8601 date"),
        ({"id": "s", "date": "2024-01-01", "turns": "hi"}, "sessions[1].turns: expected a list"),
        (["not", "a", "session"], "sessions[1]: expected an object"),
    ],
)
def test_bad_sessions_name_their_place(tmp_path: Path, bad_session: Any, expected: str) -> None:
    data = doc(session("s0", "2024-01-01"), bad_session)
    err = error_of(tmp_path, data)
    assert expected in err.message, err.message


def test_duplicate_turn_ids_across_sessions(tmp_path: Path) -> None:
    data = doc(
        session("s1", "2024-01-01", turn("a"), turn("b")),
        session("s2", "2024-01-02", turn("c"), turn("a")),
    )
    err = error_of(tmp_path, data)
    assert "sessions[1].turns[1].id: duplicate turn id 'a' (also sessions[0].turns[0])" in (
        err.message
    )


def test_duplicate_session_ids(tmp_path: Path) -> None:
    data = doc(session("s1", "2024-01-01", turn("a")), session("s1", "2024-01-02", turn("b")))
    assert "sessions[1].id: duplicate session id 's1'" in error_of(tmp_path, data).message


def test_a_session_over_the_resource_limit(tmp_path: Path) -> None:
    big = [turn(f"t{i}", "w" * 95_000) for i in range(11)]  # 11 × 95K > 1,000,000
    err = error_of(tmp_path, doc(session("s", "2024-01-01", *big)))
    assert "sessions[0]: the session's turns total" in err.message
    assert "1,000,000" in err.message


def test_every_problem_is_collected_and_a_few_are_shown(tmp_path: Path) -> None:
    turns = [{"id": f"t{i}", "speaker": "Mia"} for i in range(8)]  # 8 missing texts
    err = error_of(tmp_path, doc({"id": "s", "date": "2024-01-01", "turns": turns}))
    assert len(err.context["problems"]) == 8
    assert "sessions[0].turns[0].text: field required" in err.message
    assert "(and 3 more)" in err.message


def test_parse_transcript_checks_already_decoded_data() -> None:
    t = parse_transcript(doc(session("s", "2024-01-01")))
    assert t.sessions[0].id == "s"
    with pytest.raises(TranscriptError, match=r"sessions\[0\]\.turns\[0\]\.text"):
        parse_transcript(
            doc({"id": "s", "date": "2024-01-01", "turns": [{"id": "a", "speaker": "x"}]})
        )


# ── dates ──────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2024-03-01", datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T18:30:00", datetime(2024, 3, 1, 18, 30, tzinfo=UTC)),
        ("2024-03-01T18:30:00Z", datetime(2024, 3, 1, 18, 30, tzinfo=UTC)),
        ("2024-03-01 18:30", datetime(2024, 3, 1, 18, 30, tzinfo=UTC)),
        (
            "2024-03-01T18:30:00.250+05:30",
            datetime(2024, 3, 1, 18, 30, 0, 250_000, tzinfo=timezone(timedelta(hours=5.5))),
        ),
    ],
)
def test_dates_are_aware(given: str, expected: datetime) -> None:
    date = parse_transcript(doc(session("s", given))).sessions[0].date
    assert date == expected
    assert date.tzinfo is not None
    assert date.utcoffset() == expected.utcoffset()


def test_sessions_in_date_order_sorts_by_instant_and_is_stable() -> None:
    t = parse_transcript(
        doc(
            session("late", "2024-03-05", turn("1")),
            session("tie-a", "2024-03-01T09:00:00Z", turn("2")),
            session("plus-one", "2024-03-01T09:30:00+01:00", turn("3")),  # 08:30 UTC
            session("tie-b", "2024-03-01T09:00:00+00:00", turn("4")),
            session("first", "2024-02-20", turn("5")),
        )
    )
    assert [s.id for s in sessions_in_date_order(t)] == [
        "first",
        "plus-one",
        "tie-a",
        "tie-b",
        "late",
    ]
    assert t.sessions[0].id == "late", "the transcript itself is not reordered"
