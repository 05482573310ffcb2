"""Sums a reply states are checked: "17 times 24 is 408" to "what's 17 times 23?" is wrong
twice (a misquoted question and a product nobody asked for), and a companion that gets a
person's numbers wrong is a bug, whatever its tone.

:func:`wrong_sums` finds each "A op B is/= C" in a reply and says what is wrong with it:
an operand that is not among the numbers of their message (when their message has
numbers), or a result that is not A op B. Plain integers and decimals, the four operations
in words or symbols. Pure functions: no model, no I/O.
"""

from __future__ import annotations

import re
from decimal import Decimal, DivisionByZero, InvalidOperation
from typing import Final

_NUMBER: Final = r"(-?\d+(?:[.,]\d+)?)"
_OPS: Final = {
    "times": "*", "multiplied by": "*", "x": "*", "×": "*", "*": "*",
    "plus": "+", "+": "+", "and": "+",
    "minus": "-", "-": "-", "less": "-",
    "divided by": "/", "over": "/", "/": "/", "÷": "/",
}  # fmt: skip
_OP: Final = "|".join(re.escape(op) for op in sorted(_OPS, key=len, reverse=True) if op != "and")
SUM: Final = re.compile(
    rf"{_NUMBER}\s*({_OP})\s*{_NUMBER}\s*(?:is|=|equals|makes|gives(?:\s+you)?)\s*"
    rf"(?:equal\s+to\s+|about\s+|approximately\s+)?{_NUMBER}",
    re.IGNORECASE,
)
NUMBER: Final = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?")


def _value(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))


def _compute(a: Decimal, op: str, b: Decimal) -> Decimal | None:
    try:
        if op == "*":
            return a * b
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        return a / b
    except (DivisionByZero, InvalidOperation):
        return None


def _close(x: Decimal, y: Decimal) -> bool:
    """Equal, or equal once rounded the way the reply rounded ``y``."""
    if x == y:
        return True
    exponent = y.as_tuple().exponent
    places = -exponent if isinstance(exponent, int) else 0
    return round(x, max(places, 0)) == y


def wrong_sums(reply: str, theirs: str) -> list[str]:
    """What is wrong with each sum ``reply`` states, e.g. ["says 17 times 24, they asked
    about 17 and 23", "17 times 24 is 408, not 409"]; [] when every sum holds."""
    asked = {_value(n) for n in NUMBER.findall(theirs)}
    out: list[str] = []
    for match in SUM.finditer(reply):
        a_text, op_word, b_text, c_text = match.groups()
        a, b, c = _value(a_text), _value(b_text), _value(c_text)
        stated = f"{a_text} {op_word} {b_text}"
        if asked and not {a, b} <= asked:
            theirs_numbers = " and ".join(str(n) for n in sorted(asked))
            out.append(f"says {stated}, their message has {theirs_numbers}")
        result = _compute(a, _OPS[op_word.lower()], b)
        if result is not None and not _close(result, c):
            out.append(f"{stated} is {result.normalize():f}, not {c_text}")
    return out


ASKED: Final = re.compile(rf"{_NUMBER}\s*({_OP})\s*{_NUMBER}\s*(?:\?|$|=)", re.IGNORECASE)


def sum_answer(theirs: str) -> str:
    """For a message that asks one sum ("what's 17 times 23?"): the answer, worked out
    here ("17 times 23 is 391."), which the fallback says when every generated reply got
    it wrong; "" for anything else."""
    found = list(ASKED.finditer(theirs.strip()[:500]))
    if len(found) != 1:
        return ""
    a_text, op_word, b_text = found[0].groups()
    result = _compute(_value(a_text), _OPS[op_word.lower()], _value(b_text))
    if result is None:
        return ""
    shown = f"{round(result, 4).normalize():f}" if result != result.to_integral() else f"{result:f}"
    return f"{a_text} {op_word} {b_text} is {shown}."
