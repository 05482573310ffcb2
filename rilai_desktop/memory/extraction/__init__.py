"""Turns -> ItemDrafts: the extraction half of seed 003's ``extract_and_store`` (1.2).

``RuleExtractor`` (``rules.py``, over ``patterns.py``) is deterministic and always runs, so
memory works even when the model is weak: it reads only the user's turns, sentence by
sentence, and drafts the sentence itself (cleaned, never rewritten) when a pattern
recognises a preference, boundary, biography fact, commitment, decision, value, goal or
event. A substantive user turn no pattern recognised becomes one low-importance
``utterance`` item, so recall never misses it.

``LLMExtractor`` (``llm.py``) asks the extraction model for short facts under a JSON schema
the grammar enforces (enums for every bounded value), then validates each item in code:
unknown turn ids, parroted instructions, ungrounded text and repeats are dropped (DESIGN:
the tiny models parrot and repeat). ``extract_drafts`` (``modes.py``) picks or combines the
two per the mode. ``text.py`` cleans and splits text; ``drafts.py`` maps kinds to
categories and folds repeated drafts.
"""

from rilai_desktop.memory.extraction.drafts import KIND_CATEGORIES, ExtractionMode
from rilai_desktop.memory.extraction.llm import LLM_KINDS, LLMExtractor, reply_schema
from rilai_desktop.memory.extraction.modes import extract_drafts
from rilai_desktop.memory.extraction.rules import RuleExtractor
from rilai_desktop.memory.extraction.text import clean_text, iter_sentences

__all__ = [
    "KIND_CATEGORIES",
    "LLM_KINDS",
    "ExtractionMode",
    "LLMExtractor",
    "RuleExtractor",
    "clean_text",
    "extract_drafts",
    "iter_sentences",
    "reply_schema",
]
