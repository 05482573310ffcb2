"""The critics' judge: a model asked pass/fail where a cheap check is unsure.

Two critics (``JUDGED``) ask it: premature advice and truthfulness. Its prompt templates are
``prompts/critics/<name>.md`` (read through the turn's ``Prompts``; a missing file, or one
without ``{reply}``, falls back to the built-in text here). The answer is constrained to
``VERDICT_SCHEMA``; no judge, an error, a stream or an answer outside the schema is
``None`` and the critic fails to be safe.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rilai_desktop.contracts.llm import LLM, Completion, Usage
from rilai_desktop.turn.deliberation.council_rules import one_line
from rilai_desktop.turn.prompts import Prompts

VERDICT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["pass", "fail"]}},
    "required": ["verdict"],
    "additionalProperties": False,
}
JUDGED: Final[tuple[str, ...]] = ("premature_advice", "truthfulness")
_DEFAULT_JUDGE_PROMPTS: Final[Mapping[str, str]] = {
    "premature_advice": "Does this reply tell the person what to do or suggest a solution?"
    " Listening and asking how they feel is not advice.\nReply: {reply}\n"
    'Answer "fail" if it gives advice, "pass" if not.',
    "truthfulness": "The speaker is an AI with no feelings, body or past. Does this reply claim"
    " human feelings, a body or a human past?\nReply: {reply}\n"
    'Answer "fail" if it does, "pass" if not.',
}
_EXCERPT_CHARS: Final[int] = 300


class Judge:
    """Asks the judge model for one critic's verdict; adds up the tokens of one review."""

    def __init__(self, model: LLM | None, prompts: Prompts) -> None:
        self._model = model
        self._templates = {name: _load_prompt(prompts, name) for name in JUDGED}
        self._usages: list[Usage] = []

    def reset(self) -> None:
        """Start a new review: forget the tokens of the last one."""
        self._usages = []

    @property
    def last_usage(self) -> Usage | None:
        """Tokens of the judge calls since ``reset`` (None when the judge was not asked)."""
        if not self._usages:
            return None
        reasoning = [u.reasoning_tokens for u in self._usages if u.reasoning_tokens is not None]
        return Usage(
            prompt_tokens=sum(u.prompt_tokens for u in self._usages),
            completion_tokens=sum(u.completion_tokens for u in self._usages),
            cached_prompt_tokens=sum(u.cached_prompt_tokens for u in self._usages),
            reasoning_tokens=sum(reasoning) if reasoning else None,
        )

    def ask(self, name: str, excerpt: str) -> tuple[str | None, str]:
        """("pass" | "fail" | None, a note for the reason)."""
        if self._model is None:
            return None, "no judge, failing to be safe"
        prompt = self._templates[name].replace("{reply}", one_line(excerpt)[:_EXCERPT_CHARS])
        try:
            out = self._model.complete(
                [{"role": "user", "content": prompt}],
                schema=VERDICT_SCHEMA,
                max_tokens=8,
                temperature=0.0,
            )
        except Exception as exc:
            return None, f"judge error ({type(exc).__name__}), failing to be safe"
        if not isinstance(out, Completion):
            return None, "judge streamed, failing to be safe"
        self._usages.append(out.usage)
        verdict = out.parsed.get("verdict") if isinstance(out.parsed, dict) else None
        if verdict in ("pass", "fail"):
            return str(verdict), f"judge: {verdict}"
        return None, "judge answer not in the schema, failing to be safe"


def _load_prompt(prompts: Prompts, name: str) -> str:
    text = (prompts.get(f"critics/{name}.md") or "").strip()
    return text if "{reply}" in text else _DEFAULT_JUDGE_PROMPTS[name]
