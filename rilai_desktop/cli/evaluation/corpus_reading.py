"""Read the understanding corpus the way the turn reads a message (issue 28).

Each message goes through the app's own ``FastSensors`` (``app.build_sensors``: rules, the
understanding model, the safety bank) with the turns before it as history, and through the
``Council`` with no model (the rules, and the classifier where it is sure; where both leave
the intent open, the council's documented fallback). Three intents are kept per message —
the rules alone (classifier off, rules' readings), the classifier alone, and the council as
the app runs it — so ``rilai sense --eval`` can print them side by side with the per-sensor
AUROC of the rules against the final readings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rilai_desktop.cli.evaluation.corpus import CorpusMessage
from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.contracts.sensor import SENSOR_NAMES
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.evaluation import auroc
from rilai_desktop.turn.state import TurnState

ROLES = {"user": "user", "rilai": "assistant", "assistant": "assistant"}


@dataclass(frozen=True)
class MessageRead:
    message: CorpusMessage
    rules: dict[str, float]
    final: dict[str, float]
    intent_rules: str
    intent_classifier: str | None
    intent_council: str


def history_of(message: CorpusMessage) -> list[dict[str, Any]]:
    return [{"role": ROLES.get(r, r), "content": t} for r, t in message.context]


def _council_intent(council: Council, state: TurnState) -> str:
    decision = council.decide(state).decision
    return decision.speech_act.intent


def read_message(
    sensors: FastSensors, rules_council: Council, council: Council, message: CorpusMessage
) -> MessageRead:
    history = history_of(message)
    rules = sensors.read_rules(message.text)
    final = sensors.read(message.text, history)
    reading = sensors.intent_reading(message.text, history)
    base = TurnState("corpus", 1, message.text, history=history, sensors=dict(rules))
    full = TurnState("corpus", 1, message.text, history=history, sensors=dict(final))
    full.intent_reading = reading
    return MessageRead(
        message,
        {k: v.probability for k, v in rules.items()},
        {k: v.probability for k, v in final.items()},
        _council_intent(rules_council, base),
        reading.intent if reading is not None else None,
        _council_intent(council, full),
    )


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    scores = []
    for label in labels:
        tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == label and p == label)
        fp = sum(1 for g, p in zip(gold, predicted, strict=True) if g != label and p == label)
        fn = sum(1 for g, p in zip(gold, predicted, strict=True) if g == label and p != label)
        scores.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores) if scores else 0.0


def intent_scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    labels = [i for i in INTENTS if i in set(gold)]
    correct = sum(1 for g, p in zip(gold, predicted, strict=True) if g == p)
    return {
        "accuracy": round(correct / len(gold), 3) if gold else None,
        "macro_f1": round(macro_f1(gold, predicted, labels), 3) if gold else None,
        "confusions": dict(
            Counter(
                f"{g}->{p}" for g, p in zip(gold, predicted, strict=True) if g != p
            ).most_common(8)
        ),
    }


def corpus_report(reads: Sequence[MessageRead]) -> dict[str, Any]:
    """Per-sensor AUROC (rules / final) and the three intents' accuracy and macro-F1."""
    sensors: dict[str, Any] = {}
    for name in SENSOR_NAMES:
        labels = [r.message.label(name) for r in reads]
        sensors[name] = {
            "n": len(labels),
            "positives": sum(labels),
            "auroc_rules": _round(auroc([r.rules[name] for r in reads], labels)),
            "auroc_learned": _round(auroc([r.final[name] for r in reads], labels)),
        }
    defined = [s for s in sensors.values() if s["auroc_learned"] is not None]
    gold = [r.message.intent for r in reads]
    classifier = [r.intent_classifier or "observe" for r in reads]
    by_lang = Counter(r.message.lang for r in reads)
    return {
        "messages": len(reads),
        "languages": dict(by_lang.most_common()),
        "sensors": sensors,
        "macro_auroc_rules": _mean([s["auroc_rules"] for s in defined]),
        "macro_auroc_learned": _mean([s["auroc_learned"] for s in defined]),
        "intent": {
            "rules": intent_scores(gold, [r.intent_rules for r in reads]),
            "classifier": intent_scores(gold, classifier),
            "council": intent_scores(gold, [r.intent_council for r in reads]),
        },
        "gold_intents": dict(Counter(gold).most_common()),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(sum(vals) / len(vals), 3) if vals else None
