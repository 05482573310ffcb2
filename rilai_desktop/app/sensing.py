"""The sensing the app builds (part of the composition root): the fast sensors with the
learned layer, the understanding model and the safety exemplar bank over the process's
encoders, and the grey-band safety check. ``app.build`` re-exports these; every client —
the window, the shell, the evals and the benches — builds its sensors here."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from rilai_desktop.config import Settings

if TYPE_CHECKING:
    from rilai_desktop.turn.sensors import FastSensors

log = logging.getLogger(__name__)


def build_sensors(embedder: Any | None, encoder: Any | None = None) -> FastSensors:
    """The fast sensors, with the learned layer when ``embedder`` fits the shipped heads and
    the safety exemplar bank over the multilingual ``encoder`` (default: this process's one
    ``MultilingualEncoder``, loaded on first use).

    ``embedder`` is memory's (MiniLM, loaded once and shared: its LRU cache also means the
    message is embedded once for sensing and recall). Without one (tests with fakes), the
    rules run alone; with the hash backend (another dimension) or without a heads file,
    there is no learned layer; without the bank file or the encoder package, no bank.
    """
    from rilai_desktop.turn.sensors import FastSensors
    from rilai_desktop.turn.sensors.learned import LearnedLayer, load_default_heads
    from rilai_desktop.turn.sensors.safety_bank import load_default_layer

    if embedder is None:
        return FastSensors()
    dimension = getattr(embedder, "dimension", None)

    def embed(text: str) -> Any:
        return embedder.embed([text])[0]

    heads = load_default_heads()
    learned = LearnedLayer(embed, heads) if heads and dimension == heads.dimension else None
    if getattr(embedder, "model_id", "").startswith("fake-"):
        return FastSensors(learned=learned)  # the hash backend: no real sentence encoder
    encoder = encoder if encoder is not None else bank_encoder()

    def encode(text: str) -> Any:
        return encoder.embed([text])[0]

    bank = load_default_layer(encode, encoder.dimension, getattr(encoder, "model_id", None))
    return FastSensors(
        learned=learned, bank=bank, understanding=build_understanding(embed, encode, dimension,
                                                                      encoder.dimension)
    )  # fmt: skip


def build_understanding(embed: Any, encode: Any, en_dim: Any, ml_dim: Any) -> Any:
    """The understanding model over both encoders (turn/understanding), or None when the
    shipped file is missing or was built for other encoders (logged)."""
    from rilai_desktop.turn.understanding import (
        FeatureBuilder,
        UnderstandingLayer,
        load_default_model,
    )

    model = load_default_model()
    if model is None:
        return None
    dims = {"text_en": en_dim, "text_ml": ml_dim, "context": ml_dim, "rules": 9}
    if any(model.dims.get(k) != v for k, v in dims.items()):
        log.warning("understanding model expects %s, encoders give %s: not used", model.dims, dims)
        return None
    return UnderstandingLayer(FeatureBuilder(embed, encode, model.dims), model)


def build_safety_check(models: Any, settings: Settings) -> Any:
    """The grey-band model check on the ``safety_check`` role's tier, or None when
    ``safety.model_check`` is off (docs/safety.md)."""
    from rilai_desktop.turn.safety_check import SafetyCheck

    if not settings.safety.model_check:
        return None
    return SafetyCheck(models.for_role("safety_check"))


_ENCODER: list[Any] = []


def bank_encoder() -> Any:
    """The process's one multilingual encoder for the safety bank (loaded on first use)."""
    from rilai_desktop.memory.sentence_encoder import MultilingualEncoder

    if not _ENCODER:
        _ENCODER.append(MultilingualEncoder(threads=1))
    return _ENCODER[0]
