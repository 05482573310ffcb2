"""``extract_drafts``: the rules, the model, or both, per the extraction mode."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from rilai_desktop.errors import ExtractionError, MemoryInputError
from rilai_desktop.memory.extraction.drafts import ExtractionMode, _check_hint
from rilai_desktop.memory.extraction.llm import LLMExtractor, _stems
from rilai_desktop.memory.extraction.rules import RuleExtractor
from rilai_desktop.memory.extraction.text import _key
from rilai_desktop.memory.types import (
    ItemDraft,
    Turn,
)

log = logging.getLogger(__name__)

# ── the modes ────────────────────────────────────────────────────────────────


def _repeats_a_rule(draft: ItemDraft, rule_drafts: Sequence[ItemDraft]) -> bool:
    """Equal or contained normalised content; or, against a recognised (non-utterance) rule
    draft, a paraphrase made only of that draft's words."""
    key, stems = _key(draft.content), _stems(draft.content)
    for rule in rule_drafts:
        rule_key = _key(rule.content)
        if key and (key in rule_key or rule_key in key):
            return True
        if rule.kind != "utterance" and stems and stems <= _stems(rule.content):
            return True
    return False


def extract_drafts(
    turns: Sequence[Turn],
    mode: ExtractionMode,
    *,
    rules: RuleExtractor,
    llm: LLMExtractor | None,
    category_hint: str | None = None,
) -> tuple[list[ItemDraft], list[str]]:
    """Drafts for ``turns`` per ``mode``, and warnings for the caller to show.

    "rules": the rules only. "llm": the model only (no model → MemoryInputError; its
    ExtractionError propagates). "both": the rules, plus the model's drafts that do not
    repeat a rule draft; if the model fails, the rule drafts and a warning (seed 003's
    matrix: log a warning, return what we have).
    """
    if mode not in ("rules", "llm", "both"):
        raise MemoryInputError(f"extraction mode must be rules, llm or both, got {mode!r}")
    _check_hint(category_hint)
    if mode == "llm":
        if llm is None:
            raise MemoryInputError(
                "no extraction model is configured, so mode 'llm' cannot run",
                recovery_suggestions=[
                    "Install the extraction model tier (`rilai models list`)",
                    "Or extract with mode 'rules'",
                ],
            )
        return llm.extract(turns, category_hint=category_hint), []
    drafts = rules.extract(turns, category_hint=category_hint)
    if mode == "rules":
        return drafts, []
    if llm is None:
        return drafts, ["no extraction model is configured: used the rules only"]
    try:
        found = llm.extract(turns, category_hint=category_hint)
    except ExtractionError as exc:
        log.warning("llm extraction failed, keeping the rule drafts: %s", exc)
        return drafts, [f"llm extraction failed: {exc.message}"]
    return drafts + [d for d in found if not _repeats_a_rule(d, drafts)], []
