"""model -> JSON -> model is the identity, for every contract model."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from rilai_desktop.contracts import PAYLOAD_MODELS, EngineEvent, EventKind
from tests.contracts import strategies as S

ROUNDTRIP = settings(max_examples=50, deadline=None)


def _roundtrip(model: type[BaseModel], obj: BaseModel) -> None:
    assert isinstance(obj, model)
    again = model.model_validate_json(obj.model_dump_json())
    assert again == obj
    # and the dict form survives too (what a JSON column or a log line stores)
    assert model.model_validate(obj.model_dump(mode="json")) == obj


@pytest.mark.parametrize("model", list(S.MODEL_STRATEGIES), ids=lambda m: m.__name__)
@ROUNDTRIP
@given(data=st.data())
def test_json_roundtrip_is_identity(model: type[BaseModel], data: st.DataObject) -> None:
    obj = data.draw(S.MODEL_STRATEGIES[model], label=model.__name__)
    _roundtrip(model, obj)


@pytest.mark.parametrize("kind", list(EventKind), ids=lambda k: k.value)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_engine_event_roundtrip_for_every_kind(kind: EventKind, data: st.DataObject) -> None:
    event = data.draw(S.engine_events(kind), label="event")
    assert event.kind is kind
    _roundtrip(EngineEvent, event)


def test_every_payload_model_has_a_strategy() -> None:
    assert set(S.PAYLOAD_STRATEGIES) == set(PAYLOAD_MODELS)


def test_every_exported_contract_has_a_strategy() -> None:
    import pydantic

    import rilai_desktop.contracts as contracts

    exported_models = {
        obj
        for name in contracts.__all__
        if isinstance(obj := getattr(contracts, name), type) and issubclass(obj, pydantic.BaseModel)
    }
    assert exported_models == set(S.MODEL_STRATEGIES)
