"""The learned reading of a message in its conversation: nine sensor heads and an intent
classifier over the embeddings sensing already computes (docs/sensors.md, "The understanding
model"; issue 28)."""

from rilai_desktop.turn.understanding.features import FeatureBuilder, context_text
from rilai_desktop.turn.understanding.layer import UnderstandingLayer
from rilai_desktop.turn.understanding.model import (
    MODEL_FILE,
    IntentReading,
    ModelError,
    UnderstandingModel,
    load_default_model,
    load_model,
    save_model,
)

__all__ = [
    "MODEL_FILE",
    "FeatureBuilder",
    "IntentReading",
    "ModelError",
    "UnderstandingLayer",
    "UnderstandingModel",
    "context_text",
    "load_default_model",
    "load_model",
    "save_model",
]
