from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.jsonl import object_lines


class Bad(Exception):
    pass


def bad(line: int, problem: str) -> Bad:
    return Bad(f"line {line}: {problem}")


def test_objects_come_with_their_line_numbers_skipping_blank_and_comment_lines() -> None:
    text = '{"a": 1}\n\n   \n# a note\n{"b": 2}\n'
    assert list(object_lines(text, bad, comments=True)) == [(1, {"a": 1}), (5, {"b": 2})]


def test_comments_are_errors_unless_allowed() -> None:
    with pytest.raises(Bad, match="line 1: not JSON"):
        list(object_lines("# note\n", bad))


@pytest.mark.parametrize(
    ("text", "message"),
    [('{"a": 1}\n{"a": \n', "line 2: not JSON"), ('{"a": 1}\n[1, 2]\n', "line 2: expected")],
)
def test_the_first_bad_line_is_named(text: str, message: str) -> None:
    with pytest.raises(Bad, match=message):
        list(object_lines(text, bad))


def test_read_text_says_what_is_wrong_with_the_file(tmp_path: Path) -> None:
    from rilai_desktop.jsonl import read_text

    class Bad(Exception):
        pass

    def error(message: str) -> Bad:
        return Bad(message)

    def bad(line: int, problem: str) -> Bad:
        return Bad(f"line {line}: {problem}")

    good = tmp_path / "good.jsonl"
    good.write_bytes(b"\xef\xbb\xbf{}\n")
    assert read_text(good, error, bad) == "{}\n"  # the BOM is dropped
    with pytest.raises(Bad, match="no such file"):
        read_text(tmp_path / "missing.jsonl", error, bad)
    with pytest.raises(Bad, match="is a directory, not a JSON Lines file"):
        read_text(tmp_path, error, bad)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"{}\n{}\n\xff\xfe\n")
    with pytest.raises(Bad, match="line 3: not UTF-8 text"):
        read_text(binary, error, bad)
