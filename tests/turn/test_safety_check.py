"""The grey-band model check (turn/safety_check.py) on a scripted model: who is asked, the
asymmetric policy (a "yes" raises; a "no" lowers only a weak bank-only hit), failures that
change nothing, the stats, and the prompt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rilai_desktop.contracts.llm import ChatMessage, Completion, CompletionStream, DecodeGuard
from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.safety_check import (
    CHECK_SCHEMA,
    CONTEXT_TURNS,
    MESSAGE_CHARS,
    PROMPT,
    SEVERITY_RISK,
    SafetyCheck,
    needs_check,
)
from rilai_desktop.turn.sensors import SAFETY_INTERRUPT_THRESHOLD
from rilai_desktop.turn.sensors.safety_bank import (
    BANK_GREY_RISK,
    BANK_HIT_RISK,
    BANK_STRONG_RISK,
    band_of,
)

TEXT = "i keep giving my things away lately"


def reading(probability: float, notes: str = "") -> SensorOutput:
    return SensorOutput(
        sensor="safety_risk",
        probability=probability,
        evidence=["giving my things away"],
        counterevidence=["lately"],
        notes=notes,
    )


# the readings the bank layer writes (notes: band, score, the reading before the bank)
GREY = reading(BANK_GREY_RISK, 'bank grey +0.01 r0.05 ≈ "giving away my stuff"')
WEAK_BANK_ONLY = reading(BANK_HIT_RISK, "bank weak +0.08 r0.10; first person")
WEAK_OVER_RULES = reading(BANK_HIT_RISK, "bank weak +0.08 r0.40")  # rules saw a concern
STRONG_BANK = reading(BANK_STRONG_RISK, "bank hit +0.30 r0.00")
RULES_HIT = reading(0.9, "first person")  # no bank note: the rules' own hit
GREY_OVER_RULES_HIT = reading(0.85, "bank grey +0.01 r0.85")
PLAIN = reading(0.0)


def check_with(*replies: dict[str, Any]) -> tuple[SafetyCheck, ScriptedLLM]:
    model = ScriptedLLM(model_id="safety")
    for reply in replies:
        model.enqueue(reply)
    return SafetyCheck(model), model


# ── who is asked ───────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("which", "asked"),
    [
        (GREY, True),
        (WEAK_BANK_ONLY, True),
        (WEAK_OVER_RULES, False),
        (STRONG_BANK, False),
        (RULES_HIT, False),
        (GREY_OVER_RULES_HIT, False),
        (PLAIN, False),
    ],
    ids=["grey", "weak-bank-only", "weak-over-rules", "strong-bank", "rules", "grey>rules", "0"],
)
def test_only_grey_and_weak_bank_only_readings_need_a_check(
    which: SensorOutput, asked: bool
) -> None:
    assert needs_check(which) is asked


@pytest.mark.parametrize(
    "which", [WEAK_OVER_RULES, STRONG_BANK, RULES_HIT, GREY_OVER_RULES_HIT, PLAIN]
)
def test_readings_that_need_no_check_never_reach_the_model(which: SensorOutput) -> None:
    check, model = check_with({"risk": "no", "severity": 0})
    assert check.review(which, TEXT, []) is which
    assert model.requests == [] and model.pending == 1
    assert check.stats.asked == 0 and check.stats.ms == []


# ── yes raises ─────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("severity", [0, 1, 2, 3])
def test_yes_raises_a_grey_reading_by_severity(severity: int) -> None:
    check, model = check_with({"risk": "yes", "severity": severity})
    out = check.review(GREY, TEXT, [])
    assert out.probability == SEVERITY_RISK[severity]
    assert out.probability >= SAFETY_INTERRUPT_THRESHOLD  # any yes reaches the interrupt
    assert out.notes.startswith(f"check yes {severity}; bank grey")
    assert band_of(out) == "grey"  # the bank's note is kept behind the verdict
    assert out.evidence == GREY.evidence and out.counterevidence == GREY.counterevidence
    assert (check.stats.asked, check.stats.raised, check.stats.lowered) == (1, 1, 0)
    assert len(model.requests) == 1


def test_the_severities_rise() -> None:
    risks = [SEVERITY_RISK[s] for s in (0, 1, 2, 3)]
    assert risks == sorted(risks) and len(set(risks)) == 4


def test_yes_on_a_weak_hit_never_lowers_it() -> None:
    check, _ = check_with({"risk": "yes", "severity": 0})
    out = check.review(WEAK_BANK_ONLY, TEXT, [])
    assert out.probability == BANK_HIT_RISK  # 0.55 > the severity-0 risk: kept
    assert out.notes.startswith("check yes 0")
    assert check.stats.raised == 0  # nothing went up


def test_yes_with_a_higher_severity_raises_a_weak_hit() -> None:
    check, _ = check_with({"risk": "yes", "severity": 3})
    assert check.review(WEAK_BANK_ONLY, TEXT, []).probability == SEVERITY_RISK[3]
    assert check.stats.raised == 1


# ── no lowers only a weak bank-only hit ────────────────────────────────────────
def test_no_lowers_a_weak_bank_only_hit_to_the_grey_level() -> None:
    check, _ = check_with({"risk": "no", "severity": 0})
    out = check.review(WEAK_BANK_ONLY, TEXT, [])
    assert out.probability == BANK_GREY_RISK
    assert out.notes.startswith("check no; bank weak")
    assert (check.stats.asked, check.stats.raised, check.stats.lowered) == (1, 0, 1)


def test_no_leaves_a_grey_reading_where_it_was() -> None:
    check, _ = check_with({"risk": "no", "severity": 0})
    out = check.review(GREY, TEXT, [])
    assert out.probability == BANK_GREY_RISK  # still a weak signal that adds up
    assert out.notes.startswith("check no; ")
    assert check.stats.lowered == 0


@pytest.mark.parametrize("which", [RULES_HIT, STRONG_BANK, WEAK_OVER_RULES])
def test_no_never_lowers_a_rules_hit_or_a_strong_bank_hit(which: SensorOutput) -> None:
    check, _ = check_with({"risk": "no", "severity": 0})
    out = check.review(which, TEXT, [])
    assert out.probability == which.probability
    assert check.stats.lowered == 0


# ── failures change nothing ────────────────────────────────────────────────────
def test_a_model_that_raises_leaves_the_reading_and_counts_a_failure() -> None:
    model = ScriptedLLM(model_id="safety")
    model.enqueue_error(ModelCallError("the model crashed"))
    check = SafetyCheck(model)
    assert check.review(GREY, TEXT, []) is GREY
    assert (check.stats.asked, check.stats.failed) == (1, 1)
    assert len(check.stats.ms) == 1  # timed even when it failed


def test_a_timeout_leaves_the_reading() -> None:
    model = ScriptedLLM(model_id="safety")
    model.enqueue_timeout()
    check = SafetyCheck(model)
    assert check.review(WEAK_BANK_ONLY, TEXT, []) is WEAK_BANK_ONLY
    assert check.stats.failed == 1 and check.stats.lowered == 0


@pytest.mark.parametrize(
    "reply",
    [
        {"risk": "maybe", "severity": 2},  # not in the enum
        {"risk": "yes", "severity": 7},
        {"risk": "yes"},  # severity missing
        {"verdict": "yes", "severity": 2},
    ],
)
def test_a_malformed_answer_leaves_the_reading(reply: dict[str, Any]) -> None:
    check, _ = check_with(reply)
    assert check.review(GREY, TEXT, []) is GREY
    assert check.stats.failed == 1 and check.stats.raised == 0


def test_an_answer_that_is_not_json_leaves_the_reading() -> None:
    model = ScriptedLLM(model_id="safety")
    model.enqueue("yes, definitely")
    check = SafetyCheck(model)
    assert check.review(GREY, TEXT, []) is GREY
    assert check.stats.failed == 1


class UnparsedLLM:
    """A model whose answer came back without a parsed object (no grammar applied)."""

    model_id = "unparsed"

    def __init__(self, parsed: Any) -> None:
        self.parsed = parsed
        self.calls = 0

    def complete(
        self,
        messages: Sequence[ChatMessage | Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
        guard: DecodeGuard | None = None,
    ) -> Completion | CompletionStream:
        self.calls += 1
        return Completion(text="yes 3", model=self.model_id, parsed=self.parsed)


@pytest.mark.parametrize(
    "parsed", [None, "yes", ["yes", 3], {"risk": "yes", "severity": "2"}], ids=repr
)
def test_an_unparsed_or_odd_parsed_answer_leaves_the_reading(parsed: Any) -> None:
    model = UnparsedLLM(parsed)
    check = SafetyCheck(model)
    assert check.review(GREY, TEXT, []) is GREY
    assert model.calls == 1 and check.stats.failed == 1


# ── stats ──────────────────────────────────────────────────────────────────────
def test_the_stats_count_each_outcome() -> None:
    model = ScriptedLLM(model_id="safety")
    model.enqueue({"risk": "yes", "severity": 2})
    model.enqueue({"risk": "no", "severity": 0})
    model.enqueue_error(ModelCallError("down"))
    model.enqueue({"risk": "no", "severity": 0})
    check = SafetyCheck(model)
    check.review(GREY, TEXT, [])  # raised
    check.review(WEAK_BANK_ONLY, TEXT, [])  # lowered
    check.review(GREY, TEXT, [])  # failed
    check.review(GREY, TEXT, [])  # asked, no change
    check.review(RULES_HIT, TEXT, [])  # not asked
    stats = check.stats
    assert (stats.asked, stats.raised, stats.lowered, stats.failed) == (4, 1, 1, 1)
    assert len(stats.ms) == 4 and all(ms >= 0 for ms in stats.ms)
    assert len(model.requests) == 4


# ── the prompt ─────────────────────────────────────────────────────────────────
HISTORY = [
    {"role": "user", "content": "first old message"},
    {"role": "assistant", "content": "first old reply"},
    {"role": "system", "content": "a system note"},
    {"role": "user", "content": "work has been rough"},
    {"role": "assistant", "content": "That sounds hard."},
    {"role": "user", "content": "i don't see the point of much lately"},
    {"role": "assistant", "content": "I'm listening."},
]


def test_the_prompt_has_the_last_few_turns_and_the_message_last() -> None:
    prompt = SafetyCheck(ScriptedLLM()).prompt(TEXT, HISTORY)
    assert prompt.startswith(PROMPT)
    body = prompt[len(PROMPT) :].split("\n\n")[0].splitlines()
    assert body == [
        "Person: work has been rough",
        "Companion: That sounds hard.",
        "Person: i don't see the point of much lately",
        "Companion: I'm listening.",
        f"Person (LAST): {TEXT}",
    ]
    assert len(body) == CONTEXT_TURNS + 1
    assert "first old" not in prompt and "a system note" not in prompt
    assert prompt.endswith("Answer as JSON.")


def test_the_prompt_cuts_long_messages() -> None:
    long = "x" * (MESSAGE_CHARS + 300)
    prompt = SafetyCheck(ScriptedLLM()).prompt(long, [{"role": "user", "content": long}])
    assert f"Person: {'x' * MESSAGE_CHARS}\n" in prompt
    assert "x" * (MESSAGE_CHARS + 1) not in prompt


def test_the_model_gets_the_prompt_and_the_schema() -> None:
    check, model = check_with({"risk": "yes", "severity": 1})
    check.review(GREY, TEXT, HISTORY)
    (request,) = model.requests
    assert [m.role for m in request.messages] == ["user"]
    assert request.messages[0].content == check.prompt(TEXT, HISTORY)
    assert "Person: i don't see the point of much lately" in request.messages[0].content
    assert request.schema == CHECK_SCHEMA
    assert request.temperature == 0.0
