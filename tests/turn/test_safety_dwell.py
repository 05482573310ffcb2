"""A message read inside the careful window: does it stay with the disclosure?"""

from __future__ import annotations

import pytest

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD
from rilai_desktop.turn.sensors.safety_dwell import careful_reading, dwelling


@pytest.mark.parametrize(
    "text",
    [
        "I haven't done anything. I just can't stop thinking it.",
        "I can't stop thinking about it",
        "the thoughts won't go away",
        "it keeps coming back, every night",
        "I think about it all the time",
        "I haven't acted on it",
        "i cant stop thinking about that",
    ],
)
def test_dwelling_on_it(text: str) -> None:
    assert dwelling(text)


@pytest.mark.parametrize(
    "text",
    [
        "thanks, that helps",
        "I'm going to make some tea",
        "I did it! I passed",
        "what do you think?",
    ],
)
def test_moving_on_is_not_dwelling(text: str) -> None:
    assert dwelling(text) is None


def test_careful_reading_raises_to_the_concern_level_and_keeps_higher_readings() -> None:
    low = SensorOutput(sensor="safety_risk", probability=0.0)
    raised = careful_reading(low, "it won't go away")
    assert raised.probability == SAFETY_CONCERN_THRESHOLD
    assert raised.evidence == ["it won't go away"]
    high = SensorOutput(sensor="safety_risk", probability=0.9, evidence=["want to die"])
    assert careful_reading(high, "it won't go away") is high
    assert careful_reading(low, "thanks") is low
