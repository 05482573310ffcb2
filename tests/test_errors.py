"""The error contract: stable codes, seed 003's memory taxonomy, hints, JSON-able dicts."""

from __future__ import annotations

import builtins
import json
from typing import Any

import pytest

from rilai_desktop import errors
from rilai_desktop.errors import (
    MEMORY_ERRORS,
    CategoryExistsError,
    CategoryNotFoundError,
    ConfigError,
    MemoryError,
    ResourceNotFoundError,
    RilaiError,
)

# seed 003, section 7 "Error Contract": code -> class name
SEED_003 = {
    "MEM-000": "MemoryError",
    "MEM-001": "ResourceNotFoundError",
    "MEM-002": "CategoryNotFoundError",
    "MEM-003": "CategoryExistsError",
    "MEM-004": "EmbeddingError",
    "MEM-005": "ExtractionError",
    "MEM-006": "ConsolidationError",
    "MEM-007": "RetrievalError",
    "MEM-008": "VectorIndexError",
    "MEM-009": "StorageError",
}

# the constructors seed 003 gives a signature to; the rest take a message
SPECIAL_ARGS: dict[str, tuple[Any, ...]] = {
    "ResourceNotFoundError": ("res-1",),
    "CategoryNotFoundError": ("preferences", ["facts", "goals"]),
    "CategoryExistsError": ("preferences",),
}


def make(cls: type[RilaiError]) -> RilaiError:
    args = SPECIAL_ARGS.get(cls.__name__, (f"{cls.__name__} happened",))
    return cls(*args)


@pytest.mark.parametrize(("code", "name"), sorted(SEED_003.items()))
def test_memory_error_class_matches_seed(code: str, name: str) -> None:
    cls = getattr(errors, name)
    assert isinstance(cls, type)
    assert cls.__name__ == name
    assert cls.code == code
    assert cls.name == name
    assert issubclass(cls, MemoryError)
    assert issubclass(cls, RilaiError)
    assert issubclass(cls, Exception)
    exc = make(cls)
    assert exc.code == code
    assert exc.name == name
    assert exc.message
    assert exc.recovery_suggestions, f"{name} carries no recovery suggestions"
    assert all(isinstance(h, str) and h.strip() for h in exc.recovery_suggestions)
    assert exc.hints == exc.recovery_suggestions
    assert str(exc) == f"[{code}] {exc.message}"
    with pytest.raises(MemoryError):
        raise exc


def test_memory_errors_tuple_is_the_whole_taxonomy() -> None:
    assert [c.code for c in MEMORY_ERRORS] == sorted(SEED_003)
    assert [c.__name__ for c in MEMORY_ERRORS] == [SEED_003[c] for c in sorted(SEED_003)]


def test_memory_error_does_not_replace_the_builtin() -> None:
    """Ours shadows builtins.MemoryError only inside rilai_desktop.errors."""
    assert MemoryError is not builtins.MemoryError
    assert not issubclass(MemoryError, builtins.MemoryError)
    assert builtins.MemoryError.__module__ == "builtins"


def test_codes_are_unique() -> None:
    classes = [
        obj
        for obj in vars(errors).values()
        if isinstance(obj, type) and issubclass(obj, RilaiError)
    ]
    # a refinement that keeps its parent's code (MemoryNotEmptyError is a RIL-040 input
    # error a client may single out) defines none of its own
    codes = [c.code for c in classes if "code" in vars(c)]
    assert len(codes) == len(set(codes)), codes
    assert all(c.code.startswith(("RIL-", "MEM-")) for c in classes)


def test_resource_not_found_as_in_seed() -> None:
    exc = ResourceNotFoundError("abc-123")
    assert exc.resource_id == "abc-123"
    assert exc.message == "Resource 'abc-123' not found"
    assert exc.context == {"resource_id": "abc-123"}
    assert exc.recovery_suggestions == [
        "Verify the resource ID is correct",
        "Use list_by_type() to see available resources",
    ]


def test_category_not_found_as_in_seed() -> None:
    exc = CategoryNotFoundError("preferences", ["facts", "goals"])
    assert exc.category_name == "preferences"
    assert exc.message == "Category 'preferences' not found"
    assert exc.context == {"category_name": "preferences", "available": ["facts", "goals"]}
    assert exc.recovery_suggestions == [
        "Create the category with create_category()",
        "Available categories: facts, goals",
    ]


def test_category_not_found_without_available() -> None:
    exc = CategoryNotFoundError("preferences")
    assert exc.context == {"category_name": "preferences", "available": None}
    assert exc.recovery_suggestions == ["Create the category with create_category()"]
    assert CategoryNotFoundError("x", []).recovery_suggestions == [
        "Create the category with create_category()"
    ]


def test_category_exists_as_in_seed() -> None:
    exc = CategoryExistsError("preferences")
    assert exc.message == "Category 'preferences' already exists"
    assert exc.context == {"category_name": "preferences"}
    assert exc.recovery_suggestions == [
        "Use a different name",
        "Use get_by_name() to access existing category",
    ]


@pytest.mark.parametrize("cls", MEMORY_ERRORS, ids=lambda c: c.__name__)
def test_to_dict_is_json_serialisable(cls: type[RilaiError]) -> None:
    exc = make(cls)
    data = exc.to_dict()
    assert set(data) == {"code", "name", "message", "recovery_suggestions", "context"}
    assert json.loads(json.dumps(data)) == data
    assert data["code"] == cls.code
    assert data["name"] == cls.name


def test_to_dict_makes_odd_context_values_json_safe() -> None:
    from pathlib import Path

    exc = ConfigError(
        "bad",
        context={"path": Path("/tmp/x"), "nested": {1: (Path("/a"), 2.5)}, "none": None},
    )
    data = exc.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["context"] == {"path": "/tmp/x", "nested": {"1": ["/a", 2.5]}, "none": None}


def test_hints_are_copied_per_instance() -> None:
    a = errors.StorageError("disk full")
    a.recovery_suggestions.append("mutated")
    b = errors.StorageError("disk full again")
    assert "mutated" not in b.recovery_suggestions
    assert "mutated" not in errors.StorageError.recovery_suggestions


def test_explicit_hints_replace_class_defaults() -> None:
    exc = errors.EmbeddingError("no model", recovery_suggestions=["install it"])
    assert exc.recovery_suggestions == ["install it"]
    assert errors.EmbeddingError.recovery_suggestions != ["install it"]
