"""Contrast of both themes (issue 31, docs/accessibility.md): every text colour the
stylesheets set, on every background it is drawn on, meets WCAG 2.x AA for normal text
(4.5:1); focus and selection accents meet the 3:1 of user-interface components. The
colours are read from resources/style/*.qss, so a change to a theme is checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT

STYLES = REPO_ROOT / "resources" / "style"
AA_TEXT = 4.5
AA_UI = 3.0

USER = "QFrame#message-user"
REPLY = "QFrame#message-assistant, QFrame#message-nudge"
GROUND = "QMainWindow, QWidget#conversation-inner"
INPUT = "QPlainTextEdit#message-input"
SEND = "QPushButton#send-button"
BODY = "QLabel#message-body"
HEADER = "QLabel#message-header"
TOOL = "QToolButton"
TOOL_FOCUS = "QToolButton:hover, QToolButton:focus"
NOTE = "QFrame#message-system QLabel#message-body"

# (text rule, its property, background rule, its property, the bar): what is drawn on what
PAIRS: list[tuple[str, str, str, str, float]] = [
    *[(fg, "color", bg, "background", AA_TEXT)
      for fg in (BODY, HEADER, TOOL, TOOL_FOCUS) for bg in (USER, REPLY)],
    (NOTE, "color", GROUND, "background", AA_TEXT),
    (INPUT, "color", INPUT, "background", AA_TEXT),
    (SEND, "color", SEND, "background", AA_TEXT),
    (INPUT + ":focus", "border", INPUT, "background", AA_UI),
    ("QLabel#digest-text", "color", "QFrame#digest-banner", "background", AA_TEXT),
]  # fmt: skip


def rules(path: Path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", text):
        props = out.setdefault(selector.strip(), {})
        for decl in body.split(";"):
            if ":" in decl:
                key, value = decl.split(":", 1)
                props[key.strip()] = value.strip()
    return out


def colour(value: str) -> str:
    if value == "white":
        return "#ffffff"
    found = re.search(r"#[0-9a-fA-F]{6}", value)
    assert found, value
    return found.group(0)


def luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_computed_as_wcag_says() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert round(contrast("#777777", "#ffffff"), 2) == 4.48


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_colour_meets_aa_on_its_background(theme: str) -> None:
    sheet = rules(STYLES / f"{theme}.qss")
    failed = []
    for fg_rule, fg_prop, bg_rule, bg_prop, bar in PAIRS:
        fg, bg = colour(sheet[fg_rule][fg_prop]), colour(sheet[bg_rule][bg_prop])
        ratio = contrast(fg, bg)
        if ratio < bar:
            failed.append(f"{fg_rule} {fg} on {bg_rule} {bg}: {ratio:.2f} < {bar}")
    assert not failed, "\n".join(failed)
