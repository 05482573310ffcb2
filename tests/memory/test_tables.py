"""The SQLModel declarations and migration 0003 describe the same tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine

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
