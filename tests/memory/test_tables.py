"""The SQLModel declarations and migration 0003 describe the same tables."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.dialects import sqlite

from rilai_desktop.memory.tables import TABLES
from rilai_desktop.store import EventLog


@pytest.mark.parametrize("model", TABLES, ids=lambda m: m.__tablename__)  # type: ignore[attr-defined]
def test_declaration_matches_the_migration(model: type, tmp_path: Path) -> None:
    name = model.__tablename__  # type: ignore[attr-defined]
    table = model.__table__  # type: ignore[attr-defined]
    with EventLog(tmp_path / "rilai.db") as log:
        info = log.connection.execute(f"PRAGMA table_info({name})").fetchall()
    migrated = {row[1]: (bool(row[3]), row[5] > 0) for row in info}  # notnull, pk
    declared = {
        col.name: (not col.nullable or col.primary_key, bool(col.primary_key))
        for col in table.columns
    }
    assert set(declared) == set(migrated)
    for column, (notnull, pk) in declared.items():
        m_notnull, m_pk = migrated[column]
        assert pk == m_pk, column
        if not pk:  # SQLite reports INTEGER PRIMARY KEY as nullable
            assert notnull == m_notnull, column


def test_the_declarations_can_create_the_schema() -> None:
    """They are real SQLModel tables: SQLAlchemy can build them (in memory)."""
    engine = create_engine("sqlite://")
    TABLES[0].metadata.create_all(engine)
    with engine.connect() as conn:
        names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master")}
    assert {m.__tablename__ for m in TABLES} <= names  # type: ignore[attr-defined]
    engine.dispose()


def _affinity(declared_type: str) -> str:
    """SQLite's type affinity of a declared column type (sqlite.org/datatype3.html 3.1)."""
    t = declared_type.upper()
    if "INT" in t:
        return "INTEGER"
    if any(s in t for s in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB"
    if any(s in t for s in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def test_every_migrated_table_is_declared(tmp_path: Path) -> None:
    """Every ordinary table the migrations make is declared, beside the event log's own
    tables and FTS5's (the virtual tables and their shadow tables)."""
    with EventLog(tmp_path / "rilai.db") as log:
        rows = log.connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
        ).fetchall()
    virtual = {name for name, sql in rows if sql.upper().startswith("CREATE VIRTUAL")}
    ordinary = {
        name
        for name, _ in rows
        if name not in virtual
        and not any(name.startswith(f"{v}_") for v in virtual)
        and name not in {"schema_version", "events", "sqlite_sequence"}
    }
    assert ordinary == {m.__tablename__ for m in TABLES}  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", TABLES, ids=lambda m: m.__tablename__)  # type: ignore[attr-defined]
def test_types_defaults_and_foreign_keys_match(model: type, tmp_path: Path) -> None:
    """Column types (by SQLite affinity), defaults and foreign keys agree."""
    name = model.__tablename__  # type: ignore[attr-defined]
    table = model.__table__  # type: ignore[attr-defined]
    with EventLog(tmp_path / "rilai.db") as log:
        conn = log.connection
        info = {r[1]: r for r in conn.execute(f"PRAGMA table_info({name})").fetchall()}
        fks = {
            (r[3], r[2], r[4]) for r in conn.execute(f"PRAGMA foreign_key_list({name})")
        }  # (from, table, to)
    for col in table.columns:
        migrated_type, migrated_default = info[col.name][2], info[col.name][4]
        declared_type = col.type.compile(dialect=sqlite.dialect())
        assert _affinity(declared_type) == _affinity(migrated_type), col.name
        declared_default = (
            col.default.arg if col.default is not None and col.default.is_scalar else None
        )
        expected = None if migrated_default is None else ast.literal_eval(migrated_default)
        assert declared_default == expected, col.name
    declared_fks = {
        (fk.parent.name, fk.column.table.name, fk.column.name) for fk in table.foreign_keys
    }
    assert declared_fks == fks


def test_the_fact_dedupe_lookup_uses_the_partial_hash_index(tmp_path: Path) -> None:
    """Migration 0008: turn records sharing a hash ("How are you?" said daily) are not
    visited by the lookup of a new fact's text (memory/items.py), found by the soak."""
    with EventLog(tmp_path / "rilai.db") as log:
        plan = log.connection.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM memory_items WHERE content_hash = ?"
            " AND kind != 'turn' AND invalid_at IS NULL LIMIT 1",
            ("x",),
        ).fetchall()
    assert "idx_memory_items_fact_hash" in plan[0][3]
    source = (Path(__file__).parents[2] / "rilai_desktop/memory/items.py").read_text()
    assert "AND kind != 'turn' AND invalid_at IS NULL LIMIT 1" in source  # the same text
