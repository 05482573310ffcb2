"""Seed 002's context store on a real EventLog file: storage, dedupe, access, expiry, errors."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.errors import MemoryInputError, StorageError
from rilai_desktop.memory.context_store import ContextItem, ContextStore
from rilai_desktop.store import EventLog

CTX_ID = re.compile(r"ctx_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}")
T0 = datetime(2026, 1, 20, 10, 0, 0, tzinfo=UTC)


class Clock:
    """A settable clock: tests move time by hand."""

    def __init__(self, now: datetime = T0) -> None:
        self.at = now

    def now(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    with EventLog(tmp_path / "rilai.db") as opened:
        yield opened


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(log: EventLog, clock: Clock) -> ContextStore:
    return ContextStore(log, clock=clock)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row(log: EventLog, item_id: str) -> dict[str, Any]:
    cur = log.connection.execute("SELECT * FROM contexts WHERE id = ?", (item_id,))
    names = [d[0] for d in cur.description]
    found = cur.fetchone()
    assert found is not None
    return dict(zip(names, found, strict=True))


def count(log: EventLog) -> int:
    return int(log.connection.execute("SELECT COUNT(*) FROM contexts").fetchone()[0])


# ── round trips ──────────────────────────────────────────────────────────────

PAYLOAD = {"b": [1, 2.5, None, True], "a": {"nested": "text"}, "z": "ünïcødé 🎉"}


def test_gzip_round_trip_stores_base64_gzip_of_canonical_json(
    store: ContextStore, log: EventLog
) -> None:
    item = store.save("extraction_result", PAYLOAD, agent_id="extractor")
    stored = row(log, item.id)
    text = canonical(PAYLOAD)
    assert stored["compression"] == "gzip"
    assert gzip.decompress(base64.b64decode(stored["content"])).decode("utf-8") == text
    assert stored["content_hash"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert item.content_hash == stored["content_hash"]
    assert stored["created_at"] == "2026-01-20T10:00:00.000000+00:00"
    assert json.loads(stored["parent_ids"]) == []
    assert json.loads(stored["metadata"]) == {}
    assert CTX_ID.fullmatch(item.id)

    got = store.get(item.id)
    assert got is not None
    assert got.content == PAYLOAD
    assert (got.type, got.agent_id, got.created_at) == ("extraction_result", "extractor", T0)
    assert got.created_at.tzinfo is not None


def test_none_compression_stores_the_json_text(store: ContextStore, log: EventLog) -> None:
    item = store.save("job_analysis", PAYLOAD, compression="none", metadata={"k": [1]})
    stored = row(log, item.id)
    assert stored["compression"] == "none"
    assert stored["content"] == canonical(PAYLOAD)
    got = store.get(item.id)
    assert got is not None
    assert got.content == PAYLOAD
    assert got.metadata == {"k": [1]}


@pytest.mark.parametrize("compression", ["gzip", "none"])
@pytest.mark.parametrize(
    "content",
    [
        "plain string",
        "emoji 😀👩‍👩‍👧 and CJK 漢字 and RTL مرحبا",
        0,
        -3.25,
        None,
        False,
        [],
        {},
        [{"deep": [[[{"x": "ÿ"}]]]}],
    ],
)
def test_any_json_value_round_trips(store: ContextStore, compression: str, content: Any) -> None:
    item = store.save("t", content, compression=compression)  # type: ignore[arg-type]
    assert item.content == content
    got = store.get(item.id)
    assert got is not None
    assert got.content == content
    assert type(got.content) is type(content)


def test_saved_item_is_a_validated_model(store: ContextStore) -> None:
    expiry = T0 + timedelta(hours=1)
    item = store.save("t", {"x": 1}, expires_at=expiry, metadata={"source": "test"})
    assert isinstance(item, ContextItem)
    assert item.expires_at == expiry
    assert item.accessed_at is None
    assert item.access_count == 0
    assert item.embedding is None
    with pytest.raises(ValueError):
        ContextItem.model_validate({**item.model_dump(), "surprise": 1})


def test_items_persist_across_reopening_the_log(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "rilai.db"
    with EventLog(path) as first:
        store = ContextStore(first, clock=clock)
        saved = store.save("t", {"kept": "😀"}, parent_ids=None)
        child = store.save("t", "child", parent_ids=[saved.id])
        store.touch(saved.id)
    with EventLog(path) as second:
        store = ContextStore(second, clock=clock)
        got = store.get(saved.id)
        kid = store.get(child.id)
    assert got is not None and kid is not None
    assert got.content == {"kept": "😀"}
    assert got.access_count == 2  # one touch before, one get now
    assert kid.parent_ids == [saved.id]


def test_a_save_joins_the_callers_transaction(store: ContextStore, log: EventLog) -> None:
    with pytest.raises(RuntimeError), log.transaction():
        store.save("t", "rolled back")
        raise RuntimeError("the turn failed")
    assert count(log) == 0


# ── dedupe ───────────────────────────────────────────────────────────────────


def test_same_type_and_content_returns_the_existing_item(
    store: ContextStore, log: EventLog, clock: Clock
) -> None:
    first = store.save("t", {"a": 1, "b": 2})
    clock.advance(minutes=5)
    again = store.save("t", {"b": 2, "a": 1}, compression="none")  # key order is irrelevant
    assert again.id == first.id
    assert again.access_count == 1
    assert again.accessed_at == clock.now()
    assert again.created_at == T0
    assert count(log) == 1
    assert row(log, first.id)["access_count"] == 1


def test_different_type_or_content_is_a_new_item(store: ContextStore, log: EventLog) -> None:
    a = store.save("t", {"a": 1})
    b = store.save("other", {"a": 1})
    c = store.save("t", {"a": 2})
    assert len({a.id, b.id, c.id}) == 3
    assert a.content_hash == b.content_hash != c.content_hash
    assert count(log) == 3


def test_an_expired_copy_does_not_dedupe(store: ContextStore, log: EventLog, clock: Clock) -> None:
    first = store.save("t", "x", expires_at=T0 + timedelta(minutes=1))
    clock.advance(minutes=2)
    second = store.save("t", "x")
    assert second.id != first.id
    assert count(log) == 2


# ── access stats ─────────────────────────────────────────────────────────────


def test_get_counts_an_access(store: ContextStore, log: EventLog, clock: Clock) -> None:
    item = store.save("t", "x")
    clock.advance(seconds=30)
    got = store.get(item.id)
    assert got is not None
    assert (got.access_count, got.accessed_at) == (1, T0 + timedelta(seconds=30))
    clock.advance(seconds=30)
    got = store.get(item.id)
    assert got is not None
    assert got.access_count == 2
    stored = row(log, item.id)
    assert stored["access_count"] == 2
    assert stored["accessed_at"] == "2026-01-20T10:01:00.000000+00:00"


def test_get_many_keeps_order_skips_missing_and_counts_once(
    store: ContextStore, clock: Clock
) -> None:
    a = store.save("t", "a")
    b = store.save("t", "b")
    c = store.save("t", "c")
    clock.advance(seconds=1)
    got = store.get_many([c.id, "ctx_missing", a.id, c.id, b.id])
    assert [i.id for i in got] == [c.id, a.id, b.id]
    assert [i.content for i in got] == ["c", "a", "b"]
    assert all(i.access_count == 1 and i.accessed_at == clock.now() for i in got)
    assert store.get_many([]) == []
    assert store.getMany([a.id])[0].access_count == 2


def test_touch_counts_without_reading(store: ContextStore, log: EventLog, clock: Clock) -> None:
    item = store.save("t", "x")
    clock.advance(hours=1)
    store.touch(item.id)
    store.touch(item.id)
    store.touch("ctx_unknown")  # nothing to count, nothing raised
    stored = row(log, item.id)
    assert stored["access_count"] == 2
    assert stored["accessed_at"] == "2026-01-20T11:00:00.000000+00:00"


def test_unknown_id_is_none(store: ContextStore) -> None:
    assert store.get("ctx_00000000-0000-4000-8000-000000000000") is None
    assert store.get("") is None


# ── expiry ───────────────────────────────────────────────────────────────────


def test_delete_expired_uses_the_clock(store: ContextStore, log: EventLog, clock: Clock) -> None:
    soon = store.save("t", "soon", expires_at=T0 + timedelta(hours=1))
    later = store.save("t", "later", expires_at="2026-01-20T12:00:00+00:00")
    forever = store.save("t", "forever")
    assert store.delete_expired() == 0
    clock.advance(minutes=90)
    assert store.get(soon.id) is None  # expired items are invisible before the sweep
    assert store.delete_expired() == 1
    assert count(log) == 2
    assert store.get(later.id) is not None
    assert store.deleteExpired("2026-01-20T12:00:00+00:00") == 1  # at the instant counts
    assert store.delete_expired(T0 + timedelta(days=365)) == 0
    assert store.get(forever.id) is not None


def test_expiry_in_another_time_zone_is_compared_as_an_instant(
    store: ContextStore, clock: Clock
) -> None:
    plus_two = timezone(timedelta(hours=2))
    item = store.save("t", "x", expires_at=datetime(2026, 1, 20, 12, 30, tzinfo=plus_two))
    assert item.expires_at == T0 + timedelta(minutes=30)
    clock.advance(minutes=29)
    assert store.delete_expired() == 0
    clock.advance(minutes=1)
    assert store.delete_expired() == 1


# ── parents ──────────────────────────────────────────────────────────────────


def test_parent_ids_are_stored_and_must_exist(store: ContextStore, log: EventLog) -> None:
    p1 = store.save("t", "p1")
    p2 = store.save("t", "p2")
    child = store.save("t", "child", parent_ids=[p2.id, p1.id])
    assert child.parent_ids == [p2.id, p1.id]
    assert json.loads(row(log, child.id)["parent_ids"]) == [p2.id, p1.id]

    with pytest.raises(MemoryInputError) as caught:
        store.save("t", "orphan", parent_ids=[p1.id, "ctx_nope", "ctx_gone"])
    assert "ctx_nope" in caught.value.message and "ctx_gone" in caught.value.message
    assert p1.id not in caught.value.message
    assert caught.value.context["missing"] == ["ctx_nope", "ctx_gone"]
    assert count(log) == 3


def test_an_expired_parent_does_not_count(store: ContextStore, clock: Clock) -> None:
    parent = store.save("t", "p", expires_at=T0 + timedelta(seconds=1))
    clock.advance(seconds=1)
    with pytest.raises(MemoryInputError, match=parent.id):
        store.save("t", "child", parent_ids=[parent.id])


# ── bad input: RIL-040 (a MemoryError and a ValueError), nothing written ────────────────────────

BIG = "a" * 1_000_000  # its JSON is 1,000,002 bytes


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"type": ""}, "type"),
        ({"type": "   "}, "type"),
        ({"type": "x" * 101}, "type"),
        ({"type": 5}, "type"),
        ({"content": math.nan}, "content"),
        ({"content": {"x": [math.inf]}}, "content"),
        ({"content": object()}, "content"),
        ({"content": {1, 2}}, "content"),
        ({"content": b"bytes"}, "content"),
        ({"content": "\ud800"}, "content"),
        ({"content": BIG}, "content"),
        ({"content": "😀" * 250_001}, "content"),  # < 1M characters but > 1 MB
        ({"expires_at": T0 - timedelta(seconds=1)}, "expires_at"),
        ({"expires_at": T0}, "expires_at"),
        ({"expires_at": datetime(2030, 1, 1)}, "expires_at"),  # naive
        ({"expires_at": "tomorrow"}, "expires_at"),
        ({"expires_at": 12345}, "expires_at"),
        ({"compression": "zstd"}, "compression"),
        ({"metadata": ["not", "a", "dict"]}, "metadata"),
        ({"metadata": {"x": math.nan}}, "metadata"),
        ({"metadata": {1: "int key"}}, "metadata"),
        ({"parent_ids": "ctx_single_string"}, "parent_ids"),
        ({"parent_ids": [None]}, "parent_ids"),
        ({"agent_id": ""}, "agent_id"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(
    store: ContextStore, log: EventLog, kwargs: dict[str, Any], field: str
) -> None:
    args: dict[str, Any] = {"type": "t", "content": {"ok": True}, **kwargs}
    with pytest.raises(MemoryInputError) as caught:
        store.save(args.pop("type"), args.pop("content"), **args)
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == "RIL-040"
    assert caught.value.message.startswith(field)
    assert caught.value.recovery_suggestions
    assert count(log) == 0


def test_content_of_exactly_one_megabyte_is_accepted(store: ContextStore) -> None:
    item = store.save("t", "a" * 999_998)  # the quotes make 1,000,000 bytes
    got = store.get(item.id)
    assert got is not None and len(got.content) == 999_998


def test_bad_ids_on_read_are_refused(store: ContextStore) -> None:
    with pytest.raises(MemoryInputError):
        store.get(42)  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError):
        store.get_many("ctx_one")
    with pytest.raises(MemoryInputError):
        store.touch(None)  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError):
        store.delete_expired("not a date")


def test_a_naive_clock_is_refused(log: EventLog) -> None:
    store = ContextStore(log, clock=Clock(datetime(2026, 1, 1)))
    with pytest.raises(MemoryInputError, match="clock"):
        store.save("t", "x")


# ── corrupted rows: StorageError naming the id, never garbage ────────────────


@pytest.mark.parametrize(
    ("compression", "stored"),
    [
        ("gzip", "!!! not base64 !!!"),
        ("gzip", base64.b64encode(b"not gzip at all").decode()),
        ("gzip", base64.b64encode(gzip.compress(b"\xff\xfe not utf-8")).decode()),
        ("gzip", base64.b64encode(gzip.compress(b'{"truncated": ')).decode()),
        ("none", '{"broken json'),
        ("none", '{"x":2}'),  # valid JSON, but not what the content_hash says
    ],
    ids=["bad-base64", "not-gzip", "not-utf8", "truncated-json", "broken-json", "hash-mismatch"],
)
def test_a_corrupted_row_raises_storage_error(
    store: ContextStore, log: EventLog, compression: str, stored: str
) -> None:
    item = store.save("t", {"x": 1}, compression="none")
    other = store.save("t", "fine")
    with log.transaction() as conn:
        conn.execute(
            "UPDATE contexts SET content = ?, compression = ? WHERE id = ?",
            (stored, compression, item.id),
        )
    with pytest.raises(StorageError) as caught:
        store.get(item.id)
    assert item.id in caught.value.message
    assert caught.value.code == "MEM-009"
    assert caught.value.context == {"id": item.id}
    with pytest.raises(StorageError, match=item.id):
        store.get_many([other.id, item.id])
    assert row(log, other.id)["access_count"] == 0  # the failed read counted nothing
    with pytest.raises(StorageError):
        store.save("t", {"x": 1})  # the dedupe lookup reads the row too


def test_corrupted_metadata_is_a_storage_error(store: ContextStore, log: EventLog) -> None:
    item = store.save("t", "x")
    with log.transaction() as conn:
        conn.execute("UPDATE contexts SET metadata = '{oops' WHERE id = ?", (item.id,))
    with pytest.raises(StorageError, match=item.id):
        store.get(item.id)
