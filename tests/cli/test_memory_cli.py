"""`rilai memory ...` run in-process (tests/cli_runner.py) with the model-free hashed embedder.

Every test has its own RILAI_HOME (tests/conftest.py) with no GGUF installed, so hybrid
search and `--extract both` run without a model; the tests that need one install a fake
through the CLI seam (``tests.cli_runner.CliSeams``).
"""

from __future__ import annotations

import copy
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import Reply, Request, Responder, ScriptedLLM
from rilai_desktop.llm.manifest import load_manifest
from rilai_desktop.paths import Paths, resolve_paths
from tests.cli_runner import CliSeams, Result, Run

# ── fixtures and helpers ───────────────────────────────────────────────────────


@pytest.fixture(autouse=True)
def hash_embedder(rilai_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No torch model: the hashed bag-of-words embedder (after conftest cleared RILAI_*)."""
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture
def paths(rilai_home: Path) -> Paths:
    return resolve_paths()


def t(tid: str, text: str, speaker: str = "Mia") -> dict[str, str]:
    return {"id": tid, "speaker": speaker, "text": text}


# Out of date order on purpose: s2 (March 5), s1 (March 1, 08:30 UTC), s0 (Feb 20).
TRANSCRIPT: dict[str, Any] = {
    "title": "A fortnight with Mia",
    "sessions": [
        {
            "id": "s2",
            "date": "2024-03-05T20:00:00Z",
            "turns": [
                t("s2t1", "I moved to Lisbon last month and I love the light here."),
                t("s2t2", "Lisbon! How is the new flat?", "Rilai"),
                t("s2t3", "I have to finish the grant report by Friday."),
            ],
        },
        {
            "id": "s1",
            "date": "2024-03-01T09:30:00+01:00",
            "turns": [
                t("s1t1", "I prefer green tea over coffee in the morning."),
                t("s1t2", "Noted. Anything else?", "Rilai"),
                t("s1t3", "Please don't ask me about my ex, I don't want to talk about it."),
            ],
        },
        {
            "id": "s0",
            "date": "2024-02-20",
            "turns": [
                t("s0t1", "My sister's name is Ana and she is a nurse."),
                t("s0t2", "That sounds like a demanding job.", "Rilai"),
            ],
        },
    ],
}


def write_json(tmp_path: Path, data: Any, name: str = "transcript.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def write_lines(tmp_path: Path, lines: list[Any], name: str) -> Path:
    path = tmp_path / name
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def assert_clean_error(result: Result, code: str) -> None:
    assert result.code == 2, result
    assert f"error {code}: " in result.err, result
    assert "  hint: " in result.err, result
    assert "Traceback" not in result.err + result.out


def stats(run: Run) -> dict[str, Any]:
    result = run("memory", "stats", "--json")
    assert result.code == 0, result
    data: dict[str, Any] = result.json()
    return data


@pytest.fixture
def ingested(run: Run, tmp_path: Path) -> dict[str, Any]:
    result = run("memory", "ingest", str(write_json(tmp_path, TRANSCRIPT)), "--json")
    assert result.code == 0, result
    data: dict[str, Any] = result.json()
    return data


def search(run: Run, *args: str) -> dict[str, Any]:
    result = run("memory", "search", *args, "--json")
    assert result.code == 0, result
    data: dict[str, Any] = result.json()
    return data


def item_id_for(run: Run, query: str) -> str:
    hits = search(run, query, "--mode", "rag", "--k", "1")["hits"]
    return str(hits[0]["item_id"])


class _FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


# ── a fake model (the shipped ScriptedLLM), for the paths that need one ─────────


def picking(picks: list[int]) -> Responder:
    """A ScriptedLLM ``default``: the re-ranker gets ``picks`` (candidate numbers, best
    first), extraction gets no items."""

    def answer(request: Request) -> Reply:
        if "picks" in (request.schema or {}).get("properties", {}):
            return {"picks": [{"n": n, "relevance": "high"} for n in picks]}
        return {"items": []}

    return answer


def broken(request: Request) -> Reply:
    """A ScriptedLLM ``default`` for a model that fails every call."""
    raise ModelCallError("the fake model is broken")


class FakeRouter:
    def __init__(self, model: ScriptedLLM) -> None:
        self.model = model
        self.roles: list[str] = []
        self.load_error: Exception | None = None  # what loading any model raises

    def for_role(self, role: str) -> ScriptedLLM:
        self.roles.append(role)
        if self.load_error is not None:
            raise self.load_error
        return self.model


def install_model_file(paths: Paths) -> None:
    """A file where the extraction tier's GGUF would be: the CLI's cheap check passes."""
    entry = load_manifest(paths.manifest_file, paths.user_manifest_file).for_tier("medium")
    file = entry.path_in(paths.models_dir)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(b"GGUF not really")


@pytest.fixture
def no_router(seams: CliSeams, paths: Paths) -> Iterator[list[bool]]:
    """A model file is present, but loading any model fails the test; records with_models."""
    install_model_file(paths)

    def boom(*a: Any, **kw: Any) -> Any:
        raise AssertionError("an LLM was loaded")

    seams.router = boom
    seams.memory_with_models.clear()  # what ran before this fixture (ingest) is not asked
    yield seams.memory_with_models


@pytest.fixture
def fake_router(seams: CliSeams, paths: Paths) -> FakeRouter:
    install_model_file(paths)
    router = FakeRouter(ScriptedLLM(default=picking([2]), model_id="fake-medium"))
    seams.router = lambda *a, **kw: router
    return router


# ── ingest ─────────────────────────────────────────────────────────────────────


def test_ingest_in_date_order(run: Run, tmp_path: Path, ingested: dict[str, Any]) -> None:
    assert [s["session_id"] for s in ingested["sessions"]] == ["s0", "s1", "s2"]
    assert [s["date"] for s in ingested["sessions"]] == [
        "2024-02-20T00:00:00+00:00",  # a date alone is UTC midnight
        "2024-03-01T09:30:00+01:00",
        "2024-03-05T20:00:00+00:00",
    ]
    totals = ingested["totals"]
    assert totals["sessions"] == 3
    assert totals["turns"] == 8
    assert totals["stored"] >= 4
    assert totals["stored"] == sum(s["stored"] for s in ingested["sessions"])
    assert totals["reinforced"] == 0
    assert ingested["elapsed_s"] >= 0
    assert ingested["extract"] == "rules", "no model installed: the rules only"
    assert ingested["warnings"], "and it says so"
    # the resources were created in date order (export lists them in insertion order)
    out = tmp_path / "export"
    assert run("memory", "export", str(out)).code == 0
    exported = json.loads((out / "rilai-memory.json").read_text())
    resources = exported["sources"]
    assert [r["metadata"]["session_id"] for r in resources] == ["s0", "s1", "s2"]
    first = resources[0]
    assert first["type"] == "conversation"
    assert first["metadata"]["title"] == "A fortnight with Mia"
    assert first["metadata"]["date"] == "2024-02-20T00:00:00+00:00"
    assert [x["id"] for x in first["metadata"]["turns"]] == ["s0t1", "s0t2"]
    # every stored item names turns of its own session
    items = exported["items"]
    by_resource = {r["source_id"]: r["metadata"]["session_id"] for r in resources}
    for item in items:
        session = by_resource[item["source_id"]]
        assert item["source_turn_ids"]
        assert all(tid.startswith(session) for tid in item["source_turn_ids"])
    # and the event log saw them in the same order
    events = run("query", "events", "--kind", "memory.resource_stored", "--json").json()
    assert [e["payload"]["resource_id"] for e in events] == [r["source_id"] for r in resources]


def test_ingest_human_output(run: Run, tmp_path: Path) -> None:
    result = run("memory", "ingest", str(write_json(tmp_path, TRANSCRIPT)), "--extract", "rules")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert "'A fortnight with Mia'" in lines[0]
    assert "3 session(s), 8 turn(s), extract rules" in lines[0]
    session_lines = [x for x in lines if x.startswith("  s")]
    assert [x.split()[0] for x in session_lines] == ["s0", "s1", "s2"]
    assert "stored" in session_lines[0]
    assert "reinforced" in session_lines[0]
    assert "invalidated" in session_lines[0]
    assert lines[-1].startswith("Total: 3 session(s), 8 turn(s):")
    assert lines[-1].endswith(" s")
    assert result.err == "", "--extract rules needs no model, so there is nothing to warn about"


def test_reingesting_the_same_file_changes_nothing(
    run: Run, tmp_path: Path, ingested: dict[str, Any]
) -> None:
    before = stats(run)
    again = run("memory", "ingest", str(tmp_path / "transcript.json"), "--json").json()
    assert again["totals"]["stored"] == 0
    assert again["totals"]["reinforced"] == 0
    assert all(
        any(w.startswith("already ingested") for w in s["warnings"]) for s in again["sessions"]
    )
    after = stats(run)
    assert after == before | {"storage_bytes": after["storage_bytes"]}
    first_ids = sorted(i for s in ingested["sessions"] for i in s["item_ids"])
    shown = run("memory", "show", first_ids[0], "--json").json()
    assert shown["reinforcement_count"] == 0


def test_ingest_default_extract_comes_from_settings(
    run: Run, tmp_path: Path, no_router: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RILAI_MEMORY__EXTRACT", "rules")
    result = run("memory", "ingest", str(write_json(tmp_path, TRANSCRIPT)), "--json")
    assert result.code == 0, result
    assert result.json()["extract"] == "rules"
    assert no_router == [False], "rules: memory opened without models"


def test_ingest_rules_never_loads_a_model(run: Run, tmp_path: Path, no_router: list[bool]) -> None:
    path = write_json(tmp_path, TRANSCRIPT)
    result = run("memory", "ingest", str(path), "--extract", "rules", "--json")
    assert result.code == 0, result
    assert no_router == [False]


def test_ingest_both_uses_the_model_when_installed(
    run: Run, tmp_path: Path, fake_router: FakeRouter
) -> None:
    path = write_json(tmp_path, TRANSCRIPT)
    data = run("memory", "ingest", str(path), "--extract", "both", "--json").json()
    assert data["extract"] == "both"
    assert data["warnings"] == []
    assert fake_router.roles, "the extraction model was asked"
    assert len(fake_router.model.requests) >= 3
    assert data["totals"]["stored"] >= 4, "the rules' items are kept"


def test_ingest_llm_without_a_model_is_a_clean_error(run: Run, tmp_path: Path) -> None:
    result = run("memory", "ingest", str(write_json(tmp_path, TRANSCRIPT)), "--extract", "llm")
    assert_clean_error(result, "RIL-040")
    assert "rilai models install" in result.err
    assert stats(run)["total_resources"] == 0


def test_ingest_unknown_extract_mode(run: Run, tmp_path: Path) -> None:
    result = run("memory", "ingest", str(write_json(tmp_path, TRANSCRIPT)), "--extract", "magic")
    assert_clean_error(result, "RIL-040")
    assert "rules, llm or both" in result.err


def _good_sessions() -> list[dict[str, Any]]:
    sessions: list[dict[str, Any]] = copy.deepcopy(TRANSCRIPT["sessions"])
    return sessions


def _with(change: Any) -> dict[str, Any]:
    data = {"title": "t", "sessions": _good_sessions()}
    change(data)
    return data


BAD_TRANSCRIPTS: dict[str, tuple[Any, str]] = {
    "missing text late in the file": (
        _with(lambda d: d["sessions"][2]["turns"][1].pop("text")),
        "sessions[2].turns[1].text: field required",
    ),
    "missing speaker": (
        _with(lambda d: d["sessions"][0]["turns"][0].pop("speaker")),
        "sessions[0].turns[0].speaker: field required",
    ),
    "missing date": (
        _with(lambda d: d["sessions"][1].pop("date")),
        "sessions[1].date: field required",
    ),
    "missing title": (
        _with(lambda d: d.pop("title")),
        "title: field required",
    ),
    "bad date": (
        _with(lambda d: d["sessions"][1].update(date="last Tuesday")),
        "sessions[1].date: 'last Tuesday' is not an ISO-8601 date",
    ),
    "empty sessions": ({"title": "t", "sessions": []}, "sessions: the transcript has no sessions"),
    "a session without turns": (
        _with(lambda d: d["sessions"][2].update(turns=[])),
        "sessions[2].turns: a session needs at least one turn",
    ),
    "duplicate turn ids": (
        _with(lambda d: d["sessions"][2]["turns"][0].update(id="s2t1")),
        "sessions[2].turns[0].id: duplicate turn id 's2t1' (also sessions[0].turns[0])",
    ),
    "empty text": (
        _with(lambda d: d["sessions"][1]["turns"][2].update(text="   ")),
        "sessions[1].turns[2].text: empty text",
    ),
    "huge text": (
        _with(lambda d: d["sessions"][2]["turns"][1].update(text="x" * 100_001)),
        "sessions[2].turns[1].text: text has 100,001 characters",
    ),
    "wrong shape": ({"title": "t", "sessions": {"s1": []}}, "sessions: expected a list"),
    "a list at the top": ([1, 2, 3], "(top level): expected an object"),
}


@pytest.mark.parametrize("case", sorted(BAD_TRANSCRIPTS))
def test_bad_transcripts_store_nothing(run: Run, tmp_path: Path, case: str) -> None:
    data, expected = BAD_TRANSCRIPTS[case]
    result = run("memory", "ingest", str(write_json(tmp_path, data)))
    assert_clean_error(result, "RIL-041")
    assert expected in result.err, result.err
    assert "Nothing was ingested" in result.err
    after = stats(run)
    assert after["total_resources"] == 0
    assert after["total_items"] == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\xff\xd8\xff", "not UTF-8"),
        (b'{"title": "x", "sessions": [', "not JSON"),
        (b"", "the file is empty"),
    ],
)
def test_junk_files_store_nothing(run: Run, tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "junk.json"
    path.write_bytes(content)
    result = run("memory", "ingest", str(path))
    assert_clean_error(result, "RIL-041")
    assert expected in result.err
    assert stats(run)["total_resources"] == 0


def test_missing_transcript_file(run: Run, tmp_path: Path) -> None:
    result = run("memory", "ingest", str(tmp_path / "nope.json"))
    assert_clean_error(result, "RIL-041")
    assert "no such file" in result.err


def test_bad_transcript_error_as_json(run: Run, tmp_path: Path) -> None:
    data, expected = BAD_TRANSCRIPTS["missing text late in the file"]
    result = run("memory", "ingest", str(write_json(tmp_path, data)), "--json")
    assert result.code == 2
    error = result.json()["error"]
    assert error["code"] == "RIL-041"
    assert error["name"] == "TranscriptError"
    assert expected in error["message"]
    assert error["context"]["problems"] == [expected]
    assert error["recovery_suggestions"]


# ── search ─────────────────────────────────────────────────────────────────────


def test_search_json(run: Run, ingested: dict[str, Any]) -> None:
    data = search(run, "green tea", "--mode", "rag", "--k", "3")
    assert set(data) >= {
        "query",
        "mode_used",
        "escalated",
        "total_found",
        "search_time_ms",
        "hits",
    }
    assert data["query"] == "green tea"
    assert data["mode_used"] == "rag"
    assert data["escalated"] is False
    assert data["total_found"] >= len(data["hits"])
    assert data["search_time_ms"] >= 0
    assert 1 <= len(data["hits"]) <= 3
    top = data["hits"][0]
    assert set(top) == {"item_id", "content", "score", "resource_id", "turn_ids", "category"}
    assert "green tea" in top["content"]
    assert top["turn_ids"] == ["s1t1"]
    assert top["item_id"].startswith("item_")
    assert top["resource_id"].startswith("res_")
    assert top["category"]
    scores = [h["score"] for h in data["hits"]]
    assert scores == sorted(scores, reverse=True)


def test_search_human(run: Run, ingested: dict[str, Any]) -> None:
    result = run("memory", "search", "green tea", "--mode", "rag", "--k", "2")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert "for 'green tea' (mode rag" in lines[0]
    assert lines[1].lstrip().startswith("1. [")
    assert "green tea" in lines[1]
    assert "item_" in lines[2]
    assert "turns: s1t1" in lines[2]
    assert lines[3].lstrip().startswith("2. [")


def test_search_default_is_hybrid_and_says_why_it_cannot_escalate(
    run: Run, ingested: dict[str, Any]
) -> None:
    data = search(run, "where does she live")
    assert data["mode_used"] == "rag"
    assert data["escalated"] is False
    assert any("no extraction model" in w for w in data["warnings"])
    text = run("memory", "search", "where does she live")
    assert text.code == 0
    assert "warning: no extraction model is installed" in text.err


def test_search_rag_never_loads_a_model(
    run: Run, ingested: dict[str, Any], no_router: list[bool]
) -> None:
    data = search(run, "tea", "--mode", "rag")
    assert data["hits"]
    assert no_router == [False]


def test_search_llm_with_a_model(
    run: Run, ingested: dict[str, Any], fake_router: FakeRouter
) -> None:
    rag = search(run, "tea", "--mode", "rag", "--k", "3")
    data = search(run, "tea", "--mode", "llm", "--k", "3")
    assert data["mode_used"] == "llm"
    assert len(fake_router.model.requests) == 1
    # the fake picks candidate 2 first
    assert data["hits"][0]["item_id"] == rag["hits"][1]["item_id"]


@pytest.fixture
def no_retries(seams: CliSeams) -> None:
    """No retries, so no backoff sleeps, when a model fails in a test."""
    from rilai_desktop.memory.manager import MemoryRetryConfig

    seams.memory_options["retry"] = MemoryRetryConfig(
        extraction_max_retries=0, retrieval_max_retries=0
    )


@pytest.fixture
def always_escalate(seams: CliSeams) -> None:
    """Every hybrid search escalates: no confidence (at most 1) reaches the threshold."""
    seams.memory_options["escalation_threshold"] = 2.0


def test_hybrid_escalates_to_the_model(
    run: Run, ingested: dict[str, Any], fake_router: FakeRouter, always_escalate: None
) -> None:
    data = search(run, "tea", "--k", "3")
    assert data["escalated"] is True
    assert data["mode_used"] == "llm"
    assert data["warnings"] == []
    assert len(fake_router.model.requests) == 1


@pytest.mark.parametrize("broken", ["reply", "load"])
def test_hybrid_falls_back_to_rag_when_the_model_fails(
    run: Run,
    tmp_path: Path,
    ingested: dict[str, Any],
    fake_router: FakeRouter,
    no_retries: None,
    always_escalate: None,
    broken: str,
) -> None:
    if broken == "reply":
        fake_router.model.default = broken
    else:
        from rilai_desktop.llm.errors import ModelFileCorruptError

        fake_router.load_error = ModelFileCorruptError("the GGUF is truncated")
    queries = [{"id": f"q{i}", "query": q} for i, q in enumerate(["tea", "sister", "Lisbon"])]
    path = write_lines(tmp_path, queries, "q.jsonl")
    result = run("memory", "search", "--batch", str(path), "--json")
    assert result.code == 0, result
    rows = [json.loads(x) for x in result.out.splitlines()]
    assert [r["id"] for r in rows] == ["q0", "q1", "q2"]
    assert all(r["mode_used"] == "rag" and r["hits"] for r in rows)
    assert result.err.count("warning: escalation failed, using RAG only") == 1
    if broken == "reply":
        assert len(fake_router.model.requests) == 1, "the broken model is not asked again"
    # --mode llm does not hide the failure
    llm = run("memory", "search", "tea", "--mode", "llm")
    assert llm.code == 2
    assert "Traceback" not in llm.err


def test_search_k_out_of_range(run: Run, ingested: dict[str, Any]) -> None:
    for k in ("0", "101", "-3"):
        result = run("memory", "search", "tea", "--k", k)
        assert_clean_error(result, "RIL-040")
        assert "--k must be from 1 to 100" in result.err
    assert len(search(run, "tea", "--k", "100", "--mode", "rag")["hits"]) <= 100


def test_search_unknown_mode(run: Run, ingested: dict[str, Any]) -> None:
    result = run("memory", "search", "tea", "--mode", "psychic")
    assert_clean_error(result, "RIL-040")
    assert "rag, llm or hybrid" in result.err
    as_json = run("memory", "search", "tea", "--mode", "psychic", "--json")
    assert as_json.json()["error"]["code"] == "RIL-040"


def test_search_llm_without_a_model(run: Run, ingested: dict[str, Any]) -> None:
    result = run("memory", "search", "tea", "--mode", "llm")
    assert_clean_error(result, "RIL-040")
    assert "--mode rag" in result.err


def test_search_needs_exactly_one_of_query_and_batch(run: Run, tmp_path: Path) -> None:
    assert "nothing to search for" in run("memory", "search").err
    path = write_lines(tmp_path, [{"id": "a", "query": "tea"}], "q.jsonl")
    both = run("memory", "search", "tea", "--batch", str(path))
    assert_clean_error(both, "RIL-040")
    assert "not both" in both.err


def test_search_empty_query(run: Run, ingested: dict[str, Any]) -> None:
    assert_clean_error(run("memory", "search", "   ", "--mode", "rag"), "RIL-040")


def test_search_category_filter(run: Run, ingested: dict[str, Any]) -> None:
    cats = [c["name"] for c in run("memory", "categories", "--json").json()]
    name = "biography" if "biography" in cats else cats[0]
    data = search(run, "tea", "--mode", "rag", "--category", name, "--k", "10")
    assert data["hits"]
    assert {h["category"] for h in data["hits"]} == {name}
    missing = run("memory", "search", "tea", "--category", "no_such_thing")
    assert_clean_error(missing, "MEM-002")


def test_search_on_an_empty_memory(run: Run) -> None:
    data = search(run, "anything", "--mode", "rag")
    assert data["hits"] == []
    assert data["total_found"] == 0


# ── search --batch ─────────────────────────────────────────────────────────────


def test_batch_json_lines_in_input_order(
    run: Run, tmp_path: Path, ingested: dict[str, Any]
) -> None:
    queries = [
        {"id": "q-tea", "query": "green tea in the morning"},
        {"id": "q-sister", "query": "sister nurse"},
        {"id": "q-city", "query": "moved to Lisbon"},
        {"id": "q-none", "query": "quantum chromodynamics"},
    ]
    path = write_lines(tmp_path, [queries[0], "", queries[1], "   ", *queries[2:]], "q.jsonl")
    result = run("memory", "search", "--batch", str(path), "--k", "2", "--mode", "rag", "--json")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert len(lines) == 4
    rows = [json.loads(x) for x in lines]
    assert [r["id"] for r in rows] == [q["id"] for q in queries]
    for row in rows:
        assert set(row) <= {"id", "hits", "search_time_ms", "mode_used", "escalated"}
        assert {"id", "hits", "search_time_ms"} <= set(row)
        assert isinstance(row["search_time_ms"], float | int)
        assert len(row["hits"]) <= 2
        for hit in row["hits"]:
            assert set(hit) == {"item_id", "content", "score", "resource_id", "turn_ids"}
            assert isinstance(hit["turn_ids"], list)
    assert rows[0]["hits"][0]["turn_ids"] == ["s1t1"]
    assert rows[1]["hits"][0]["turn_ids"] == ["s0t1"]
    assert rows[2]["hits"][0]["turn_ids"] == ["s2t1"]
    # the same answers as one query at a time
    single = search(run, "sister nurse", "--k", "2", "--mode", "rag")
    assert [h["item_id"] for h in single["hits"]] == [h["item_id"] for h in rows[1]["hits"]]


def test_batch_default_mode_is_hybrid(run: Run, tmp_path: Path, ingested: dict[str, Any]) -> None:
    path = write_lines(tmp_path, [{"id": "a", "query": "tea"}, {"id": "b", "query": "ex"}], "q")
    result = run("memory", "search", "--batch", str(path), "--json")
    assert result.code == 0, result
    assert [json.loads(x)["id"] for x in result.out.splitlines()] == ["a", "b"]
    assert result.err.count("warning: no extraction model") == 1, "warned once, not per query"


@pytest.mark.parametrize(
    ("lines", "line_no", "expected"),
    [
        (['{"id": "a", "query": "tea"}', "not json at all"], 2, "not JSON"),
        (['{"id": "a", "query": "tea"}', '{"query": "x"}'], 2, '"id" is missing'),
        (['{"id": "a"}'], 1, '"query" is missing'),
        (['{"id": "a", "query": "tea"}', "", '{"id": "b", "query": "  "}'], 3, "is empty"),
        (['{"id": 3, "query": "tea"}'], 1, '"id" is missing or not a non-empty string'),
        (['["id", "query"]'], 1, "expected a JSON object"),
        (['{"id": "a", "query": "x"}', '{"id": "a", "query": "y"}'], 2, "duplicate id 'a'"),
    ],
)
def test_a_bad_batch_line_fails_before_any_search(
    run: Run,
    tmp_path: Path,
    ingested: dict[str, Any],
    lines: list[str],
    line_no: int,
    expected: str,
) -> None:
    path = write_lines(tmp_path, lines, "q.jsonl")
    result = run("memory", "search", "--batch", str(path), "--mode", "rag")
    assert_clean_error(result, "RIL-040")
    assert f"line {line_no}: " in result.err
    assert expected in result.err
    assert result.out == "", "no query ran"
    as_json = run("memory", "search", "--batch", str(path), "--mode", "rag", "--json")
    error = as_json.json()["error"]
    assert error["code"] == "RIL-040"
    assert error["context"]["line"] == line_no


def test_batch_file_missing_or_empty(run: Run, tmp_path: Path) -> None:
    assert "no such file" in run("memory", "search", "--batch", str(tmp_path / "x")).err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    result = run("memory", "search", "--batch", str(empty))
    assert_clean_error(result, "RIL-040")
    assert "no queries" in result.err


def test_batch_k_checked_before_reading(run: Run, tmp_path: Path) -> None:
    path = write_lines(tmp_path, [{"id": "a", "query": "tea"}], "q.jsonl")
    assert_clean_error(run("memory", "search", "--batch", str(path), "--k", "500"), "RIL-040")


# ── stats, categories, show, forget ────────────────────────────────────────────


def test_stats(run: Run, ingested: dict[str, Any]) -> None:
    data = stats(run)
    assert set(data) == {
        "total_resources",
        "total_items",
        "total_categories",
        "vector_index_size",
        "storage_bytes",
        "resources_by_type",
        "items_by_category",
        "last_extraction_at",
        "last_consolidation_at",
    }
    assert data["total_resources"] == 3
    assert data["resources_by_type"] == {"conversation": 3}
    assert data["total_items"] == ingested["totals"]["stored"] + ingested["totals"]["records"]
    assert data["vector_index_size"] == data["total_items"]
    assert data["storage_bytes"] > 0
    text = run("memory", "stats")
    assert text.code == 0
    assert "resources      3" in text.out
    assert "conversation" in text.out


def test_stats_on_an_empty_memory(run: Run) -> None:
    data = stats(run)
    assert (data["total_resources"], data["total_items"], data["total_categories"]) == (0, 0, 0)
    assert data["last_extraction_at"] is None


def test_categories(run: Run, ingested: dict[str, Any]) -> None:
    rows = run("memory", "categories", "--json").json()
    assert rows
    assert {"name", "description", "item_count", "updated_at"} <= set(rows[0])
    by_cat = stats(run)["items_by_category"]
    assert {r["name"]: r["item_count"] for r in rows if r["item_count"]} == by_cat
    text = run("memory", "categories")
    assert text.code == 0
    assert text.out.splitlines()[0].split() == ["name", "items", "description"]
    assert rows[0]["name"] in text.out


def test_categories_empty(run: Run) -> None:
    assert run("memory", "categories", "--json").json() == []
    assert "No categories yet" in run("memory", "categories").out


def test_show_an_item(run: Run, ingested: dict[str, Any]) -> None:
    item_id = item_id_for(run, "green tea")
    data = run("memory", "show", item_id, "--json").json()
    assert data["item_id"] == item_id
    assert data["content"] == "I prefer green tea over coffee in the morning."
    assert data["source_turn_ids"] == ["s1t1"]
    assert data["source_turns"] == [
        {"id": "s1t1", "speaker": "Mia", "text": "I prefer green tea over coffee in the morning."}
    ]
    assert data["valid_at"] == "2024-03-01T08:30:00Z", "the session's date, in UTC"
    assert data["is_valid"] is True
    for field in (
        "source_resource_id",
        "category",
        "confidence",
        "created_at",
        "importance",
        "kind",
        "reinforcement_count",
        "invalid_at",
    ):
        assert field in data
    text = run("memory", "show", item_id)
    assert text.code == 0
    assert item_id in text.out
    assert "source turns:" in text.out
    assert "[s1t1] Mia: I prefer green tea" in text.out


def test_show_an_unknown_item(run: Run, ingested: dict[str, Any]) -> None:
    result = run("memory", "show", "item_nope")
    assert_clean_error(result, "RIL-040")
    assert "item_nope" in result.err
    assert "rilai memory search" in result.err


def test_forget_with_yes(run: Run, ingested: dict[str, Any]) -> None:
    item_id = item_id_for(run, "green tea")
    before = stats(run)
    result = run("memory", "forget", item_id, "--yes", "--json")
    assert result.code == 0, result
    data = result.json()
    assert data["forgotten"] == item_id
    assert data["content"] == "I prefer green tea over coffee in the morning."
    after = stats(run)
    assert after["total_items"] == before["total_items"] - 1
    assert after["vector_index_size"] == before["vector_index_size"] - 1
    assert_clean_error(run("memory", "show", item_id), "RIL-040")
    hits = search(run, "green tea", "--mode", "rag", "--k", "10")["hits"]
    assert item_id not in {h["item_id"] for h in hits}
    # the category page no longer cites it
    for cat in run("memory", "categories", "--json").json():
        page = run("memory", "category", "show", cat["name"]).out
        assert item_id not in page


def test_forget_human(run: Run, ingested: dict[str, Any]) -> None:
    item_id = item_id_for(run, "sister")
    result = run("memory", "forget", item_id, "-y")
    assert result.code == 0, result
    assert result.out.startswith(f"Forgot {item_id}: My sister's name is Ana")


def test_forget_refuses_without_a_tty(
    run: Run, ingested: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    item_id = item_id_for(run, "green tea")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    result = run("memory", "forget", item_id)
    assert_clean_error(result, "RIL-000")
    assert "--yes" in result.err
    assert run("memory", "show", item_id).code == 0, "still there"


@pytest.mark.parametrize(("answer", "code", "gone"), [("n", 1, False), ("y", 0, True)])
def test_forget_asks_on_a_terminal(
    run: Run,
    ingested: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    code: int,
    gone: bool,
) -> None:
    item_id = item_id_for(run, "green tea")
    questions: list[str] = []
    monkeypatch.setattr(sys, "stdin", _FakeTty())

    def fake_input(prompt: str = "") -> str:
        questions.append(prompt)
        return answer

    monkeypatch.setattr("builtins.input", fake_input)
    result = run("memory", "forget", item_id)
    assert result.code == code, result
    assert len(questions) == 1
    assert item_id in questions[0]
    assert "green tea" in questions[0]
    assert (run("memory", "show", item_id).code != 0) is gone
    if not gone:
        assert "Nothing forgotten." in result.out


def test_forget_an_unknown_item(run: Run) -> None:
    result = run("memory", "forget", "item_nope", "--yes")
    assert_clean_error(result, "RIL-040")
    assert "rilai memory search" in result.err


# ── export, rebuild-index, category show ───────────────────────────────────────


def test_export(run: Run, tmp_path: Path, ingested: dict[str, Any]) -> None:
    out = tmp_path / "backup"
    result = run("memory", "export", str(out), "--json")
    assert result.code == 0, result
    data = result.json()
    s = stats(run)
    assert data["dir"] == str(out)
    assert data["counts"]["sources"] == s["total_resources"]
    assert data["counts"]["items"] == s["total_items"]
    assert data["counts"]["categories"] == s["total_categories"]
    assert data["paused_left_out"] == 0
    exported = json.loads((out / "rilai-memory.json").read_text())
    assert (exported["format"], exported["version"]) == ("rilai-memory", 1)
    assert len(exported["items"]) == s["total_items"]
    assert sorted(p.stem for p in (out / "categories").iterdir()) == sorted(
        c["name"] for c in run("memory", "categories", "--json").json()
    )
    text = run("memory", "export", str(tmp_path / "again"))
    assert text.code == 0
    assert text.out.startswith(f"Exported {s['total_resources']} sources, ")


def test_export_into_a_file_is_an_error(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("mine")
    result = run("memory", "export", str(target))
    assert_clean_error(result, "RIL-040")
    assert target.read_text() == "mine"


def test_rebuild_index(run: Run, ingested: dict[str, Any], paths: Paths) -> None:
    n = stats(run)["total_items"]
    result = run("memory", "rebuild-index", "--json")
    assert result.code == 0, result
    data = result.json()
    assert data["item_count"] == n
    assert data["rebuild_time_ms"] >= 0
    text = run("memory", "rebuild-index")
    assert text.out.startswith(f"Rebuilt the vector index: {n} items in ")
    events = run("query", "events", "--kind", "memory.index_rebuilt", "--json").json()
    assert [e["payload"]["reason"] for e in events][-2:] == ["requested", "requested"]
    # search still works after the rebuild
    assert search(run, "green tea", "--mode", "rag")["hits"][0]["turn_ids"] == ["s1t1"]


def test_category_show(run: Run, ingested: dict[str, Any], paths: Paths) -> None:
    item_id = item_id_for(run, "green tea")
    cat = run("memory", "show", item_id, "--json").json()["category"]
    text = run("memory", "category", "show", cat)
    assert text.code == 0, text
    assert text.out.startswith("# ")
    assert item_id in text.out, "the page cites its items"
    data = run("memory", "category", "show", cat, "--json").json()
    assert data["name"] == cat
    assert item_id in data["item_ids"]
    assert data["markdown"].rstrip("\n") == text.out.rstrip("\n")
    assert Path(data["file"]) == paths.categories_dir / f"{cat}.md"
    assert Path(data["file"]).read_text(encoding="utf-8") == data["markdown"]


def test_category_show_unknown(run: Run, ingested: dict[str, Any]) -> None:
    result = run("memory", "category", "show", "no_such_category")
    assert_clean_error(result, "MEM-002")
    assert "Available categories:" in result.err


# ── knowledge bases ────────────────────────────────────────────────────────────


def test_kb_upsert_texts_and_search(run: Run, tmp_path: Path) -> None:
    docs = [
        {"id": "brew", "text": "How to brew green tea at 80 degrees for two minutes"},
        {"id": "tram", "text": "Lisbon tram 28 runs through Alfama"},
        {"id": "nurse", "text": "Night shifts for nurses and how to sleep after them"},
    ]
    path = write_lines(tmp_path, docs, "docs.jsonl")
    result = run("memory", "kb", "upsert", "kb_1", str(path), "--json")
    assert result.code == 0, result
    assert result.json() == {
        "kb_name": "kb_1",
        "success": True,
        "upserted_count": 3,
        "texts": 3,
        "vectors": 0,
    }
    found = run("memory", "kb", "search", "kb_1", "brew green tea", "--limit", "2", "--json")
    assert found.code == 0, found
    data = found.json()
    assert data["kb_name"] == "kb_1"
    assert len(data["hits"]) == 2
    assert set(data["hits"][0]) == {"document_id", "score", "content_snippet"}
    assert data["hits"][0]["document_id"] == "brew"
    assert data["hits"][0]["content_snippet"].startswith("How to brew green tea")
    # other knowledge bases are separate
    assert run("memory", "kb", "search", "kb_2", "tea", "--json").json()["hits"] == []
    text = run("memory", "kb", "search", "kb_1", "tram Alfama")
    assert text.code == 0
    assert "tram" in text.out
    human = run("memory", "kb", "upsert", "kb_1", str(path))
    assert human.out.startswith("Upserted 3 point(s) into kb_1")


def test_kb_upsert_vectors_and_mixed(run: Run, tmp_path: Path) -> None:
    dim = 256  # the hashed embedder's dimension
    one_hot = [0.0] * dim
    one_hot[7] = 1.0
    lines = [
        {"id": "v1", "vector": one_hot, "payload": {"content": "a hand-made vector"}},
        {"id": "t1", "text": "a text embedded by the command"},
    ]
    path = write_lines(tmp_path, lines, "points.jsonl")
    result = run("memory", "kb", "upsert", "kb_core", str(path), "--json")
    assert result.code == 0, result
    assert result.json()["upserted_count"] == 2
    assert (result.json()["texts"], result.json()["vectors"]) == (1, 1)
    hits = run("memory", "kb", "search", "kb_core", "text embedded command", "--json").json()
    assert hits["hits"][0]["document_id"] == "t1"
    assert {h["document_id"] for h in hits["hits"]} == {"v1", "t1"}


@pytest.mark.parametrize("command", ["search", "upsert"])
def test_kb_unknown_name(run: Run, tmp_path: Path, command: str) -> None:
    path = write_lines(tmp_path, [{"id": "a", "text": "x"}], "docs.jsonl")
    arg = "tea" if command == "search" else str(path)
    result = run("memory", "kb", command, "kb_9", arg)
    assert_clean_error(result, "RIL-040")
    assert "kb_9" in result.err
    assert "kb_core" in result.err


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (['{"id": "a", "text": "fine"}', "{oops"], "line 2: not JSON"),
        (['{"text": "no id"}'], 'line 1: "id" is missing'),
        (['{"id": "a"}'], 'line 1: give exactly one of "text" or "vector"'),
        (['{"id": "a", "text": "x", "vector": [1.0]}'], "line 1: give exactly one"),
        (['{"id": "a", "text": ""}'], 'line 1: "text" must be a non-empty string'),
        (['{"id": "a", "vector": "1,2,3"}'], 'line 1: "vector" must be a list of numbers'),
        (
            ['{"id": "a", "text": "fine"}', '{"id": "b", "vector": [0.5, 0.5]}'],
            "line 2: the vector",
        ),
    ],
)
def test_kb_upsert_bad_lines_write_nothing(
    run: Run, tmp_path: Path, lines: list[str], expected: str
) -> None:
    path = write_lines(tmp_path, lines, "bad.jsonl")
    result = run("memory", "kb", "upsert", "kb_2", str(path))
    assert_clean_error(result, "RIL-040")
    assert expected in result.err, result.err
    assert run("memory", "kb", "search", "kb_2", "fine", "--json").json()["hits"] == []


def test_kb_limit_out_of_range(run: Run) -> None:
    for limit in ("0", "101"):
        result = run("memory", "kb", "search", "kb_1", "tea", "--limit", limit)
        assert_clean_error(result, "RIL-040")
        assert "--limit must be from 1 to 100" in result.err


# ── flags at every level, and --json everywhere ────────────────────────────────


def test_flags_at_every_level(run: Run, ingested: dict[str, Any], tmp_path: Path) -> None:
    assert "total_items" in run("--json", "memory", "stats").json()
    assert "total_items" in run("memory", "--json", "stats").json()
    kb = run("memory", "kb", "--json", "search", "kb_1", "tea")
    assert kb.json()["hits"] == []
    cat = run("memory", "--set", "ui.theme=dark", "categories", "--set", "llm.threads=2", "--json")
    assert cat.code == 0, cat
    bad = run("memory", "kb", "search", "kb_1", "tea", "--set", "nonsense")
    assert_clean_error(bad, "RIL-001")


def test_json_everywhere_parses(run: Run, tmp_path: Path, ingested: dict[str, Any]) -> None:
    item_id = item_id_for(run, "green tea")
    cat = run("memory", "show", item_id, "--json").json()["category"]
    docs = write_lines(tmp_path, [{"id": "d", "text": "green tea"}], "d.jsonl")
    commands = [
        ["ingest", str(tmp_path / "transcript.json"), "--extract", "rules"],
        ["search", "tea", "--mode", "rag"],
        ["search", "tea"],
        ["stats"],
        ["categories"],
        ["show", item_id],
        ["category", "show", cat],
        ["export", str(tmp_path / "exp")],
        ["rebuild-index"],
        ["kb", "upsert", "kb_3", str(docs)],
        ["kb", "search", "kb_3", "tea"],
        ["forget", item_id, "--yes"],
        ["show", item_id],  # an error, as JSON
    ]
    for argv in commands:
        result = run("memory", *argv, "--json")
        assert result.code in (0, 2), (argv, result)
        parsed = json.loads(result.out)
        assert parsed is not None
        assert ("error" in parsed) == (result.code == 2), argv
    assert run("memory", "show", item_id, "--json").json()["error"]["code"] == "RIL-040"


def test_memory_needs_an_action(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run("memory")
    assert info.value.code == 2
    assert "ACTION" in capsys.readouterr().err
