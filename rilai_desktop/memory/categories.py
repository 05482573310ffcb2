"""Layer 3: categories in SQLite, each also written to ``categories/<name>.md`` for the user.

Items belong to a category through ``memory_items.category``; a category's ``item_ids``
are its valid items. The markdown file is rewritten atomically on every content change.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import (
    CategoryExistsError,
    CategoryNotFoundError,
    MemoryInputError,
    StorageError,
)
from rilai_desktop.memory._sql import iso, new_id, parse_dt, utc_now
from rilai_desktop.memory.ports import Database
from rilai_desktop.memory.types import (
    CATEGORY_DESCRIPTION_MAX,
    CATEGORY_DESCRIPTION_MIN,
    CATEGORY_NAME,
    CATEGORY_NAME_MAX,
    MemoryCategory,
)

_COLS = "category_id, name, description, markdown_content, updated_at"

# Categories the extractors file items under, with the description each gets when it is
# first needed.
DEFAULT_CATEGORIES: dict[str, str] = {
    "preferences": "What the user likes, dislikes and prefers, and how they like to be treated",
    "boundaries": "Topics and behaviours the user has asked Rilai to avoid or handle with care",
    "biography": "Facts about the user's life: where they live, work, family, pets, history",
    "commitments": "Things the user has committed to, with their deadlines and appointments",
    "decisions": "Decisions the user has taken and changes they are making",
    "values": "What matters to the user: beliefs, principles and priorities",
    "goals": "The user's goals and what they are working towards",
    "events": "Notable moments and how they felt: good days, hard days, conflicts, trips",
    "conversation": "Other things the user said that may matter later",
    "notes": "Things Rilai was explicitly asked to remember",
}


def check_category_name(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise MemoryInputError(
            "a category name is required (snake_case, 1-64 characters)",
            recovery_suggestions=["Use snake_case, e.g. lead_preferences"],
        )
    if len(name) > CATEGORY_NAME_MAX or not CATEGORY_NAME.match(name):
        raise MemoryInputError(
            f"invalid category name {name[:80]!r}: use snake_case, 1-64 characters "
            "(a-z, 0-9, single underscores, starting with a letter)",
            context={"name": name[:80]},
            recovery_suggestions=["Use snake_case, e.g. lead_preferences"],
        )
    return name


def check_description(description: Any) -> str:
    if not isinstance(description, str):
        raise MemoryInputError("a category description must be text")
    length = len(description.strip())
    if not CATEGORY_DESCRIPTION_MIN <= length <= CATEGORY_DESCRIPTION_MAX:
        raise MemoryInputError(
            f"a category description has 10-500 characters, this one has {length}",
            recovery_suggestions=["Say in a sentence what the category contains"],
        )
    return description.strip()


def _is_category_name(name: str) -> bool:
    try:
        check_category_name(name)
    except MemoryInputError:
        return False
    return True


def title_of(name: str) -> str:
    return name.replace("_", " ").title()


class CategoryLayer:
    def __init__(self, db: Database, folder: Path, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        self.folder = folder
        self._clock = clock
        # inside files_follow(): each file's content before the block (None: no file)
        self._undo: dict[str, str | None] | None = None

    @contextlib.contextmanager
    def files_follow(self) -> Iterator[None]:
        """Put the markdown files written inside back as they were if the block fails.

        Used inside a write transaction: when it rolls back, the files must not keep a
        category or content SQLite no longer has. Nested use joins the outer block.
        """
        if self._undo is not None:
            yield
            return
        self._undo = {}
        try:
            yield
        except BaseException:
            for name, old in self._undo.items():
                with contextlib.suppress(OSError, StorageError):
                    if old is None:
                        self._path(name).unlink(missing_ok=True)
                    else:
                        self._write(name, old)
            raise
        finally:
            self._undo = None

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}.md"

    def _remember_file(self, name: str) -> None:
        if self._undo is None or name in self._undo:
            return
        path = self._path(name)
        try:
            self._undo[name] = path.read_text(encoding="utf-8") if path.is_file() else None
        except OSError:
            self._undo[name] = None

    # ── writing (inside the caller's transaction) ─────────────────────────
    def insert(self, conn: sqlite3.Connection, name: str, description: str) -> MemoryCategory:
        check_category_name(name)
        description = check_description(description)
        if conn.execute("SELECT 1 FROM memory_categories WHERE name = ?", (name,)).fetchone():
            raise CategoryExistsError(name)
        cat = MemoryCategory(
            category_id=new_id("cat"),
            name=name,
            description=description,
            markdown_content=f"# {title_of(name)}\n\n*No items yet.*\n",
            item_ids=[],
            updated_at=self._clock.now(),
        )
        conn.execute(
            "INSERT INTO memory_categories (category_id, name, description, markdown_content,"
            " updated_at) VALUES (?, ?, ?, ?, ?)",
            (cat.category_id, name, description, cat.markdown_content, iso(cat.updated_at)),
        )
        self.write_file(name, cat.markdown_content)
        return cat

    def ensure(self, conn: sqlite3.Connection, name: str) -> MemoryCategory | None:
        """The category, created with its default description if it is a default one."""
        existing = self._get(conn, "name", name)
        if existing is not None:
            return existing
        description = DEFAULT_CATEGORIES.get(name) or f"Memories filed under {name}"
        if len(description) < CATEGORY_DESCRIPTION_MIN:
            description = f"Memories filed under the name {name}"
        return self.insert(conn, name, description)

    def update_content(
        self, conn: sqlite3.Connection, name: str, content: str, *, consolidated: bool
    ) -> None:
        now = iso(self._clock.now())
        sql = "UPDATE memory_categories SET markdown_content = ?, updated_at = ?"
        args: list[Any] = [content, now]
        if consolidated:
            sql += ", last_consolidated_at = ?, items_since_consolidation = 0"
            args.append(now)
        cur = conn.execute(sql + " WHERE name = ?", (*args, name))
        if cur.rowcount == 0:
            raise CategoryNotFoundError(name, self.names())
        self.write_file(name, content)

    def bump_pending(self, conn: sqlite3.Connection, name: str, n: int) -> int:
        conn.execute(
            "UPDATE memory_categories SET items_since_consolidation ="
            " items_since_consolidation + ? WHERE name = ?",
            (n, name),
        )
        row = conn.execute(
            "SELECT items_since_consolidation FROM memory_categories WHERE name = ?", (name,)
        ).fetchone()
        return 0 if row is None else int(row[0])

    def delete(self, conn: sqlite3.Connection, name: str) -> bool:
        cur = conn.execute("DELETE FROM memory_categories WHERE name = ?", (name,))
        if cur.rowcount:
            self._remember_file(name)
            self._path(name).unlink(missing_ok=True)
        return cur.rowcount > 0

    def write_file(self, name: str, content: str) -> None:
        self._remember_file(name)
        self._write(name, content)

    def sync_files(self) -> list[str]:
        """Make the markdown files say what SQLite says; the names of the files fixed.

        A page is written inside its write transaction, before the COMMIT: a process killed
        in between (``kill -9``, a power cut) leaves a page, or a whole category, that
        SQLite rolled back, and ``files_follow`` never ran to put it back. On the next
        open: each page that differs is rewritten from SQLite, the page of a category
        SQLite does not have is removed, and so is a killed write's temporary file. All
        inside a write transaction, so no other process is half-way through its own write.
        """
        fixed: list[str] = []
        with self._db.transaction() as conn:
            rows = conn.execute("SELECT name, markdown_content FROM memory_categories")
            pages = {str(name): str(content) for name, content in rows.fetchall()}
            for name, content in pages.items():
                path = self._path(name)
                try:
                    current = path.read_text(encoding="utf-8") if path.is_file() else None
                except (OSError, UnicodeError):
                    current = None
                if current != content:
                    self._write(name, content)
                    fixed.append(path.name)
            for path in sorted(self.folder.glob("*.md")) if self.folder.is_dir() else []:
                stem = path.stem  # a temporary file is ".{name}-{random}.md" (see _write)
                temp = stem.startswith(".") and _is_category_name(stem[1:].rpartition("-")[0])
                if temp or (stem not in pages and _is_category_name(stem)):
                    with contextlib.suppress(OSError):
                        path.unlink()
                        fixed.append(path.name)
        return fixed

    def _write(self, name: str, content: str) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".md", dir=self.folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(content)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.folder / f"{name}.md")
        except OSError as exc:
            raise StorageError(
                f"Could not write {self.folder / (name + '.md')}: {exc}",
                context={"path": str(self.folder)},
            ) from exc

    # ── reading ───────────────────────────────────────────────────────────
    def _get(self, conn: sqlite3.Connection, column: str, value: str) -> MemoryCategory | None:
        row = conn.execute(
            f"SELECT {_COLS} FROM memory_categories WHERE {column} = ?", (value,)
        ).fetchone()
        return None if row is None else self._row(conn, row)

    def get(self, category_id: str) -> MemoryCategory | None:
        return self._get(self._db.connection, "category_id", category_id)

    def get_by_name(self, name: str) -> MemoryCategory | None:
        return self._get(self._db.connection, "name", name)

    def require(self, name: str) -> MemoryCategory:
        cat = self.get_by_name(name)
        if cat is None:
            raise CategoryNotFoundError(name, self.names())
        return cat

    def list_all(self) -> list[MemoryCategory]:
        conn = self._db.connection
        rows = conn.execute(f"SELECT {_COLS} FROM memory_categories ORDER BY name").fetchall()
        return [self._row(conn, r) for r in rows]

    def pending(self, min_new_items: int) -> list[str]:
        """Categories with at least ``min_new_items`` new items since their consolidation
        (``items_since_consolidation``: bumped when items are stored, reset by one)."""
        rows = self._db.connection.execute(
            "SELECT name FROM memory_categories WHERE items_since_consolidation >= ? ORDER BY name",
            (min_new_items,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def names(self) -> list[str]:
        rows = self._db.connection.execute("SELECT name FROM memory_categories ORDER BY name")
        return [str(r[0]) for r in rows.fetchall()]

    def last_consolidated(self) -> str | None:
        row = self._db.connection.execute(
            "SELECT MAX(last_consolidated_at) FROM memory_categories"
        ).fetchone()
        return None if row is None else row[0]

    def _row(self, conn: sqlite3.Connection, row: tuple[Any, ...]) -> MemoryCategory:
        item_ids = [
            str(r[0])
            for r in conn.execute(
                "SELECT item_id FROM memory_items WHERE category = ? AND invalid_at IS NULL"
                " ORDER BY id",
                (row[1],),
            ).fetchall()
        ]
        return MemoryCategory.model_construct(
            category_id=row[0],
            name=row[1],
            description=row[2],
            markdown_content=row[3],
            item_ids=item_ids,
            updated_at=parse_dt(row[4]) or utc_now(),
        )
