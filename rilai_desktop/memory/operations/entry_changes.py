"""The person's changes to one memory entry of any kind: edit, delete, pause, pin, "not
relevant" (issue 20).

Each change is one write transaction holding the table's row, the FTS5 row (items, by the
migration's triggers), the vector (the item's FAISS entry or the fact's / episode's
embedding column), the ``memory_controls`` projection and the ``memory.entry_changed``
event, so the log and the tables never disagree. Embeddings are computed before the
transaction opens. An edit's event carries the sha256 of the new text, never the text.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sqlite3
from collections.abc import Sequence

from rilai_desktop.contracts.clock import Clock
from rilai_desktop.errors import CategoryNotFoundError, MemoryInputError
from rilai_desktop.memory.controls import (
    ENTRY_TABLES,
    Change,
    MemoryControls,
    check_kind,
)
from rilai_desktop.memory.entries import EntryKind
from rilai_desktop.memory.items import to_blob
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.operations.pages import CategoryPages
from rilai_desktop.memory.relationship import RelationshipMemory
from rilai_desktop.memory.relationship.checks import (
    MAX_FACT_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    _ts,
    fact_hash,
)

MAX_ITEM_CHARS = 2000
_LIMITS: dict[EntryKind, int] = {
    "item": MAX_ITEM_CHARS,
    "fact": MAX_FACT_CHARS,
    "episode": MAX_SUMMARY_CHARS,
    "goal": MAX_TITLE_CHARS,
}


_TEXT_SQL: dict[EntryKind, str] = {
    "item": "SELECT content FROM memory_items WHERE item_id = ?",
    "fact": "SELECT fact FROM memory_user_facts WHERE id = ?",
    "episode": "SELECT summary FROM memory_episodes WHERE id = ?",
    "goal": "SELECT title FROM memory_goals WHERE id = ?",
}


def _words(text: str) -> str:
    """``text`` as its lower-case words (what makes two entries say the same thing)."""
    return " ".join(re.findall(r"\w+", text.lower()))


def unknown_entry(kind: str, entry_id: str) -> MemoryInputError:
    return MemoryInputError(
        f"no memory {kind} {entry_id!r}",
        context={"kind": kind, "entry_id": entry_id},
        recovery_suggestions=["`rilai memory list --kind KIND` shows the ids"],
    )


class EntryChanges:
    """Edit, delete, pause, pin and "not relevant", for items, facts, episodes and goals."""

    def __init__(
        self,
        core: MemoryCore,
        pages: CategoryPages,
        relationship: RelationshipMemory,
        controls: MemoryControls,
        clock: Clock,
    ) -> None:
        self._core = core
        self._pages = pages
        self._relationship = relationship
        self.controls = controls
        self._clock = clock

    # ── helpers ───────────────────────────────────────────────────────────
    def exists(self, kind: EntryKind, entry_id: str) -> bool:
        table, col = ENTRY_TABLES[check_kind(kind)]
        row = self._core.db.connection.execute(
            f"SELECT 1 FROM {table} WHERE {col} = ?", (entry_id,)
        ).fetchone()
        return row is not None

    def _require(self, kind: EntryKind, entry_id: str) -> None:
        if not self.exists(kind, entry_id):
            raise unknown_entry(kind, entry_id)

    def _event(
        self, kind: EntryKind, entry_id: str, change: Change, content_hash: str | None = None
    ) -> None:
        payload: dict[str, str] = {"kind": kind, "entry_id": entry_id, "change": change}
        if content_hash is not None:
            payload["content_hash"] = content_hash
        self._core.emit("memory.entry_changed", payload)

    def _item_category(self, item_id: str) -> str | None:
        row = self._core.db.connection.execute(
            "SELECT category FROM memory_items WHERE item_id = ?", (item_id,)
        ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def _refresh(self, category: str | None) -> None:
        if category is not None:  # the page must cite the new text, or stop citing the old
            with contextlib.suppress(CategoryNotFoundError):
                self._pages.refresh_category(category)

    # ── edit ──────────────────────────────────────────────────────────────
    def edit(self, kind: EntryKind, entry_id: str, text: str) -> list[tuple[EntryKind, str]]:
        """Correct one entry, and with it every other item or fact that held the same words
        (one statement is often kept three ways — a fact, a biography item, the turn's own
        record — and a correction must stick: recall would otherwise still find the old
        words in a sibling). Each entry edited is its own ``memory.entry_changed`` event.
        Returns the siblings corrected too."""
        kind = check_kind(kind)
        old = self._text(kind, entry_id)
        self._edit_one(kind, entry_id, text)
        siblings = [ref for ref in self._same_words(old) if ref != (kind, entry_id)]
        for sibling_kind, sibling_id in siblings:
            self._edit_one(sibling_kind, sibling_id, text)
        return siblings

    def _text(self, kind: EntryKind, entry_id: str) -> str:
        row = self._core.db.connection.execute(_TEXT_SQL[kind], (entry_id,)).fetchone()
        if row is None:
            raise unknown_entry(kind, entry_id)
        return str(row[0])

    def _same_words(self, text: str) -> list[tuple[EntryKind, str]]:
        """The valid items and the facts whose words are ``text``'s (case, spacing and
        punctuation aside)."""
        key = _words(text)
        if not key:
            return []
        conn = self._core.db.connection
        found: list[tuple[EntryKind, str]] = []
        for item_id, content in conn.execute(
            "SELECT item_id, content FROM memory_items WHERE invalid_at IS NULL"
            " AND lower(content) LIKE ?",
            (f"%{key.split()[0]}%",),
        ):
            if _words(content) == key:
                found.append(("item", str(item_id)))
        for fact_id, fact in conn.execute("SELECT id, fact FROM memory_user_facts"):
            if _words(fact) == key:
                found.append(("fact", str(fact_id)))
        return found

    def _edit_one(self, kind: EntryKind, entry_id: str, text: str) -> None:
        new = text.strip() if isinstance(text, str) else ""
        if not new or len(new) > _LIMITS[kind] or "\x00" in new:
            raise MemoryInputError(
                f"the new text must be 1-{_LIMITS[kind]:,} characters",
                context={"kind": kind, "entry_id": entry_id},
            )
        self._require(kind, entry_id)
        vector = self._core.embed([new])[0] if kind != "goal" else None
        digest = hashlib.sha256(new.encode("utf-8")).hexdigest()
        with self._core.mutation(index=kind == "item") as tx:
            if kind == "item":
                assert vector is not None
                self._core.item_layer.update_content(tx, entry_id, new, vector)
            elif kind == "fact":
                assert vector is not None
                tx.execute(
                    "UPDATE memory_user_facts SET fact = ?, fact_hash = ?, embedding = ?"
                    " WHERE id = ?",
                    (new, fact_hash(new), to_blob(vector), entry_id),
                )
            elif kind == "episode":
                assert vector is not None
                tx.execute(
                    "UPDATE memory_episodes SET summary = ?, embedding = ? WHERE id = ?",
                    (new, to_blob(vector), entry_id),
                )
            else:
                tx.execute(
                    "UPDATE memory_goals SET title = ?, updated_at = ? WHERE id = ?",
                    (new, _ts(self._clock.now()), entry_id),
                )
            self._event(kind, entry_id, "edited", digest)
        self._after(kind)
        if kind == "item":
            self._refresh(self._item_category(entry_id))

    # ── delete ────────────────────────────────────────────────────────────
    def delete(self, kind: EntryKind, entry_id: str) -> bool:
        """Gone from its table, FTS5 (triggers) and FAISS; its controls and feedback too."""
        kind = check_kind(kind)
        if not self.exists(kind, entry_id):
            return False
        category = self._item_category(entry_id) if kind == "item" else None
        with self._core.mutation(index=kind == "item") as tx:
            self._delete_row(tx, kind, entry_id)
            self.controls.apply(tx, kind, entry_id, "deleted")
            self._event(kind, entry_id, "deleted")
        self._after(kind)
        self._refresh(category)
        return True

    def delete_many(self, refs: Sequence[tuple[EntryKind, str]]) -> int:
        """Many entries in one transaction (the browser's bulk delete)."""
        wanted = [(check_kind(k), e) for k, e in dict.fromkeys(refs) if self.exists(k, e)]
        if not wanted:
            return 0
        cats = {self._item_category(e) for k, e in wanted if k == "item"}
        with self._core.mutation(index=any(k == "item" for k, _ in wanted)) as tx:
            for kind, entry_id in wanted:
                self._delete_row(tx, kind, entry_id)
                self.controls.apply(tx, kind, entry_id, "deleted")
                self._event(kind, entry_id, "deleted")
        for kind in {k for k, _ in wanted}:
            self._after(kind)
        for cat in sorted(c for c in cats if c is not None):
            self._refresh(cat)
        return len(wanted)

    def _delete_row(self, tx: sqlite3.Connection, kind: EntryKind, entry_id: str) -> None:
        if kind == "item":
            self._core.item_layer.delete_rows(tx, "item_id = ?", (entry_id,))
        else:
            table, col = ENTRY_TABLES[kind]
            tx.execute(f"DELETE FROM {table} WHERE {col} = ?", (entry_id,))

    # ── pause, pin, not relevant ──────────────────────────────────────────
    def set_paused(self, kind: EntryKind, entry_id: str, paused: bool) -> None:
        kind = check_kind(kind)
        self._require(kind, entry_id)
        if self.controls.state(kind, entry_id).paused == paused:
            return
        change: Change = "paused" if paused else "resumed"
        with self._core.mutation(index=kind == "item") as tx:
            self.controls.apply(tx, kind, entry_id, change)
            if kind == "item":  # a paused item leaves FAISS, so no mode can see it
                self._core.item_layer.set_indexed(tx, entry_id, not paused)
            self._event(kind, entry_id, change)
        self._after(kind)

    def set_pinned(self, kind: EntryKind, entry_id: str, pinned: bool) -> None:
        kind = check_kind(kind)
        self._require(kind, entry_id)
        if self.controls.state(kind, entry_id).pinned == pinned:
            return
        change: Change = "pinned" if pinned else "unpinned"
        with self._core.mutation(index=False) as tx:
            self.controls.apply(tx, kind, entry_id, change)
            self._event(kind, entry_id, change)

    def not_relevant(self, kind: EntryKind, entry_id: str, query: str) -> None:
        """Lower the entry for queries like ``query`` (its embedding is kept, not its words)."""
        kind = check_kind(kind)
        self._require(kind, entry_id)
        if not isinstance(query, str) or not query.strip():
            raise MemoryInputError("'not relevant' needs the query it was not relevant for")
        vector = self._core.embed([query[:2000]])[0]
        with self._core.mutation(index=False) as tx:
            self.controls.add_feedback(tx, kind, entry_id, vector)
            self._event(kind, entry_id, "not_relevant")

    def log_switch(self, paused: bool) -> None:
        """The global "memory paused" switch changed (``memory.switched``)."""
        self._core.emit_now("memory.switched", {"paused": paused})

    def _after(self, kind: EntryKind) -> None:
        if kind == "item":
            self._core.item_layer.save_index()
        else:
            self._relationship.invalidate_cache()
