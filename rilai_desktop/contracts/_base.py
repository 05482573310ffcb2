"""Shared pydantic configuration and small helpers for every contract."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict


def utc_now() -> datetime:
    """The current wall-clock time, timezone-aware, in UTC (never ``utcnow()``)."""
    return datetime.now(UTC)


class Contract(BaseModel):
    """Base for mutable contracts: unknown fields are refused, assignments re-validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class FrozenContract(BaseModel):
    """Base for immutable contracts."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
