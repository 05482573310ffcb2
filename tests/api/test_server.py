"""Issue 29: `rilai serve`'s app on a free loopback port, driven by real clients — httpx,
`websockets` and the `openai` package — over an Engine on the fakes (scripted models, the
real event log, the real memory with the hashed embedder)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from rilai_desktop.api.server import ApiServer
from rilai_desktop.api.token import load_or_create_token, token_path
from rilai_desktop.contracts import EventKind
from tests.fake_engine import VOICE_REPLY, open_fake_engine

TOKEN = "t" * 43


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, ApiServer]]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    engine = open_fake_engine()
    server = ApiServer(engine, TOKEN, port=0, max_body=64 * 1024).start()
    try:
        yield engine, server
    finally:
        server.stop()
        engine.close()


def client(server: ApiServer, token: str = TOKEN) -> httpx.Client:
    return httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def test_the_token_is_made_once_and_kept_private(tmp_path: Path) -> None:
    token = load_or_create_token(tmp_path)
    assert len(token) >= 40 and load_or_create_token(tmp_path) == token
    assert stat.S_IMODE(os.stat(token_path(tmp_path)).st_mode) == 0o600


def test_no_token_or_a_wrong_one_is_401(served: tuple[Any, ApiServer]) -> None:
    _engine, server = served
    bare = httpx.get(f"{server.url}/v1/models", timeout=10)
    assert bare.status_code == 401 and "show-token" in bare.json()["hint"]
    with client(server, "wrong") as wrong, client(server) as right:
        assert wrong.get("/v1/models").status_code == 401
        assert right.get("/v1/models").json()["data"][0]["id"] == "rilai"
    assert "access-control-allow-origin" not in bare.headers  # no CORS


def test_bad_bodies_are_422_with_the_field_named_and_huge_ones_413(
    served: tuple[Any, ApiServer],
) -> None:
    _engine, server = served
    with client(server) as http:
        bad = http.post("/kb/search", json={"query": "x", "kb_name": "kb_9", "limit": 5})
        assert bad.status_code == 422
        assert any(d["loc"][-1] == "kb_name" for d in bad.json()["detail"])
        limit = http.post("/kb/search", json={"query": "x", "kb_name": "kb_1", "limit": 101})
        assert limit.status_code == 422 and limit.json()["detail"][0]["loc"][-1] == "limit"
        dim = http.post("/kb/search", json={"query": "x", "kb_name": "kb_1", "query_vector": [0.1]})
        assert dim.status_code == 422 and "dimension" in dim.text.lower(), dim.text
        huge = http.post("/rlm", content=b'{"query": "' + b"a" * 70_000 + b'"}')
        assert huge.status_code == 413


def test_memory_knowledge_bases_and_skills(served: tuple[Any, ApiServer]) -> None:
    engine, server = served
    dim = engine.parts.memory.embedder.dimension
    with client(server) as http:
        wrote = http.post("/memory/access", json={"layer": 2, "key": "plan", "value": "tea"})
        assert wrote.json() == {"data": "tea", "success": True} or wrote.json()["success"]
        read = http.post("/memory/access", json={"layer": 2, "key": "plan"}).json()
        assert read == {"data": "tea", "success": True}
        assert http.post("/memory/access", json={"layer": 5, "key": "x"}).json()["success"] is False
        point = {"id": "doc-1", "vector": [1.0] + [0.0] * (dim - 1), "payload": {"text": "hi"}}
        up = http.post("/kb/upsert", json={"kb_name": "kb_core", "points": [point]}).json()
        assert up == {"success": True, "upserted_count": 1}
        found = http.post(
            "/kb/search",
            json={"query": "", "kb_name": "kb_core", "limit": 3, "query_vector": point["vector"]},
        ).json()
        assert found["hits"][0]["document_id"] == "doc-1"
        action = {"skill_name": "remember", "params": {"content": "They like green tea"},
                  "depth": 0, "reasoning_id": "r1"}  # fmt: skip
        dry = http.post("/actions/execute", json={**action, "mock_mode": True}).json()
        assert dry["success"] and dry["observation"].startswith("(dry run) remember(")
        done = http.post("/actions/execute", json=action).json()
        assert done["success"] and done["observation"].startswith("Remembered:"), done
        cats = {**action, "skill_name": "list_categories", "params": {}}
        assert http.post("/actions/execute", json=cats).json()["success"]
        wrong = http.post("/actions/execute", json={**action, "params": {"text": "x"}}).json()
        assert not wrong["success"] and "needs content" in wrong["error"]
    logged = engine.parts.core.event_log.events(kind=EventKind.API_REQUEST)
    assert {(e.payload["method"], e.payload["path"]) for e in logged} >= {
        ("POST", "/memory/access"),
        ("POST", "/kb/search"),
    }
    assert not any("green tea" in json.dumps(e.payload) for e in logged)  # never the body


def test_the_openai_client_talks_to_the_companion(served: tuple[Any, ApiServer]) -> None:
    from openai import OpenAI

    _engine, server = served
    ai = OpenAI(base_url=f"{server.url}/v1", api_key=TOKEN)
    assert [m.id for m in ai.models.list()] == ["rilai"]
    reply = ai.chat.completions.create(
        model="rilai", messages=[{"role": "user", "content": "work was long today"}]
    )
    assert reply.choices[0].message.content == VOICE_REPLY
    stream = ai.chat.completions.create(
        model="rilai",
        messages=[{"role": "user", "content": "and tomorrow too"}],
        stream=True,
    )
    text = "".join(c.choices[0].delta.content or "" for c in stream)
    assert text.strip() and text == text.strip()


def test_rlm_runs_one_turn(served: tuple[Any, ApiServer]) -> None:
    _engine, server = served
    with client(server) as http:
        got = http.post("/rlm", json={"query": "hello there"}).json()
    assert got["converged"] is True and got["summary"]


def test_the_event_stream_delivers_a_whole_turn_in_order(served: tuple[Any, ApiServer]) -> None:
    engine, server = served
    url = server.url.replace("http://", "ws://") + f"/events?token={TOKEN}"

    async def listen() -> list[dict[str, Any]]:
        got: list[dict[str, Any]] = []
        async with websockets.connect(url) as socket:
            await asyncio.sleep(0.2)
            handle = await asyncio.to_thread(engine.send, "a long day at work")
            while not got or got[-1]["event"] != "session_ended":
                got.append(json.loads(await asyncio.wait_for(socket.recv(), 20)))
            await asyncio.to_thread(handle.result)
        return got

    events = asyncio.run(listen())
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session_started" and kinds[-1] == "session_ended"
    assert "thought" in kinds and "converged" in kinds
    assert kinds.index("converged") < kinds.index("session_ended")
    assert len({e["reasoning_id"] for e in events}) == 1
    assert all(e["timestamp"] for e in events)

    async def refused() -> int:
        bad = server.url.replace("http://", "ws://") + "/events?token=nope"
        try:
            async with websockets.connect(bad) as socket:
                await socket.recv()
        except websockets.InvalidStatus as rejected:  # the handshake is refused
            return rejected.response.status_code
        return 0

    assert asyncio.run(refused()) == 403
