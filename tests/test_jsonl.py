from __future__ import annotations

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
