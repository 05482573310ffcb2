"""The ASGI app: seed 004's routes, the OpenAI-compatible chat, and the event stream.

Security (docs/api.md): every request carries ``Authorization: Bearer <token>`` (the
WebSocket may pass ``?token=`` instead: browsers cannot set its headers), compared in
constant time, else 401; a body over ``max_body`` bytes is 413 before it is read whole; no
CORS headers are sent, so a web page in a browser cannot read any answer; every request is
logged as an ``api.request`` event (method, path, status, ms — never the body).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Final

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, StreamingResponse

from rilai_desktop.api.events import EventQueue, agent_events, reasoning_id
from rilai_desktop.api.schemas import (
    AccessMemoryRequest,
    AccessMemoryResponse,
    ChatCompletionRequest,
    ExecuteActionRequest,
    ExecuteActionResponse,
    RLMRequest,
    RLMResponse,
    SemanticSearchRequest,
    SemanticSearchResponse,
    UpsertVectorsRequest,
    UpsertVectorsResponse,
)
from rilai_desktop.errors import MemoryInputError, RilaiError

MAX_BODY: Final[int] = 1024 * 1024  # 1 MiB: a message is capped far below (TURN input)
MODEL_ID: Final[str] = "rilai"
Scope = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Any]


class _TooLarge(Exception):
    pass


class Guard:
    """Pure ASGI middleware: the bearer token, the body limit and the request event."""

    def __init__(self, app: ASGI, *, token: str, max_body: int, log: Callable[..., None]) -> None:
        self.app, self.token, self.max_body, self.log = app, token, max_body, log

    def _authorised(self, scope: Scope) -> bool:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        if scope["type"] == "websocket" and not given:
            query = scope.get("query_string", b"").decode("latin-1")
            given = next(
                (f"Bearer {v}" for k, _, v in (p.partition("=") for p in query.split("&"))
                 if k == "token"), "")  # fmt: skip
        return hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode())

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        start, status = time.perf_counter(), [0]

        async def sent(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            if not self._authorised(scope):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 4401})
                    status[0] = 401
                    return
                await _json(sent, 401, {"error": "missing or wrong bearer token",
                                        "hint": "rilai serve --show-token"})  # fmt: skip
                return
            headers = dict(scope.get("headers") or [])
            length = headers.get(b"content-length", b"0").decode() or "0"
            if length.isdigit() and int(length) > self.max_body:
                await _json(sent, 413, {"error": f"body over {self.max_body} bytes"})
                return
            seen = [0]

            async def counted() -> Any:
                message = await receive()
                if message["type"] == "http.request":
                    seen[0] += len(message.get("body", b""))
                    if seen[0] > self.max_body:
                        raise _TooLarge
                return message

            try:
                await self.app(scope, counted, sent)
            except _TooLarge:
                await _json(sent, 413, {"error": f"body over {self.max_body} bytes"})
        finally:
            method = scope.get("method", "WS")
            ms = round((time.perf_counter() - start) * 1000, 1)
            self.log(method, scope.get("path", ""), status[0] or 101, ms)


async def _json(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": data})


def create_app(engine: Any, token: str, *, max_body: int = MAX_BODY) -> Any:
    """The app over ``engine`` (an ``app.engine.Engine``); wrap-free: ``Guard`` is applied
    here, so the returned object is what uvicorn serves."""
    api = FastAPI(title="Rilai", version="1.0.0", docs_url=None, redoc_url=None,
                  openapi_url=None)  # fmt: skip
    pool = ThreadPoolExecutor(2, thread_name_prefix="rilai-api-skill")

    def log(method: str, path: str, status: int, ms: float) -> None:
        with contextlib.suppress(Exception):  # logging a request never fails it
            engine.log_api_request(method, path, status, ms)

    def memory() -> Any:
        manager = getattr(engine.parts, "memory", None)
        if manager is None:
            raise HTTPException(503, "memory is not available in this process")
        return manager

    def on_worker(fn: Callable[[], Any]) -> Any:
        try:
            return engine.run_job(fn)
        except MemoryInputError as exc:
            raise HTTPException(422, exc.message) from None
        except RilaiError as exc:
            raise HTTPException(503, exc.message) from None

    def turn(text: str) -> Any:
        try:
            return engine.send(text).result()
        except RilaiError as exc:
            raise HTTPException(503, exc.message) from None

    @api.get("/v1/models")
    def models() -> dict[str, Any]:
        card = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "rilai"}
        return {"object": "list", "data": [card]}

    @api.post("/v1/chat/completions", response_model=None)
    def chat(body: ChatCompletionRequest) -> Any:
        users = [m.text() for m in body.messages if m.role == "user"]
        if not users or not users[-1].strip():
            raise HTTPException(422, "the last user message is missing or empty")
        result = turn(users[-1])
        rid = "chatcmpl-" + reasoning_id(result.session_id, result.turn_id)
        created = int(time.time())
        if not body.stream:
            return {
                "id": rid, "object": "chat.completion", "created": created, "model": MODEL_ID,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": result.reply}}],
                "usage": {"prompt_tokens": 0, "completion_tokens": result.reply_tokens or 0,
                          "total_tokens": result.reply_tokens or 0},
            }  # fmt: skip
        return StreamingResponse(_chunks(rid, created, result.reply),
                                 media_type="text/event-stream")  # fmt: skip

    @api.post("/rlm")
    def rlm(body: RLMRequest) -> RLMResponse:
        result = turn(body.query)
        return RLMResponse(summary=result.reply, converged=bool(result.reply.strip()))

    @api.post("/memory/access")
    def access(body: AccessMemoryRequest) -> AccessMemoryResponse:
        manager = memory()
        got = on_worker(lambda: manager.short_term.access_memory(body.layer, body.key, body.value))
        return AccessMemoryResponse(data=got.data, success=got.success)

    @api.post("/kb/search")
    def search(body: SemanticSearchRequest) -> SemanticSearchResponse:
        kbs = memory().knowledge_bases
        hits = on_worker(lambda: kbs.semantic_search(body.query, body.kb_name, body.limit,
                                                     body.query_vector))  # fmt: skip
        return SemanticSearchResponse(hits=[h.model_dump() for h in hits])

    @api.post("/kb/upsert")
    def upsert(body: UpsertVectorsRequest) -> UpsertVectorsResponse:
        kbs = memory().knowledge_bases
        points = [p.model_dump() for p in body.points]
        got = on_worker(lambda: kbs.upsert_vectors(body.kb_name, points))
        return UpsertVectorsResponse(success=got.success, upserted_count=got.upserted_count)

    @api.post("/actions/execute")
    def execute(body: ExecuteActionRequest) -> ExecuteActionResponse:
        from rilai_desktop.memory.tools import memory_tools

        tool = memory_tools(memory())[body.skill_name]
        params: dict[str, Any] = {k: (int(v) if k == "k" and v.isdigit() else v)
                                  for k, v in body.params.items()}  # fmt: skip
        try:
            _check_params(body.skill_name, params)
        except TypeError as exc:
            return ExecuteActionResponse(observation="", success=False, error=str(exc))
        if body.mock_mode:
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items())
            return ExecuteActionResponse(observation=f"(dry run) {body.skill_name}({shown})",
                                         success=True, error="")  # fmt: skip
        future = pool.submit(lambda: engine.run_job(lambda: tool.call(**params)))
        try:
            observation = future.result((body.timeout_ms or 30_000) / 1000)
        except FutureTimeout:
            return ExecuteActionResponse(observation="", success=False,
                                         error=f"timed out after {body.timeout_ms} ms")  # fmt: skip
        failed = observation.startswith("Failed")
        return ExecuteActionResponse(observation=observation, success=not failed,
                                     error=observation if failed else "")  # fmt: skip

    @api.websocket("/events")
    async def events(socket: WebSocket) -> None:
        await socket.accept()
        queue = EventQueue()

        def publish(event: Any) -> None:
            for item in agent_events(event):
                queue.put(item)

        unsubscribe = engine.subscribe(publish)
        try:
            while True:
                ready = await asyncio.to_thread(queue.wait, 0.5)
                if ready:
                    for item in queue.drain():
                        await socket.send_json({**item, "dropped": queue.dropped})
                else:  # a closed client shows on the next send or receive
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(socket.receive_text(), 0.01)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            unsubscribe()

    @api.exception_handler(RilaiError)
    async def rilai_error(_request: Request, exc: RilaiError) -> JSONResponse:
        return JSONResponse({"detail": exc.message}, status_code=503)

    return Guard(api, token=token, max_body=max_body, log=log)


SKILL_PARAMS: Final[dict[str, tuple[set[str], set[str]]]] = {  # (required, allowed)
    "recall": ({"query"}, {"query", "k", "mode", "category"}),
    "remember": ({"content"}, {"content", "category", "importance"}),
    "list_categories": (set(), set()),
    "get_category": ({"name"}, {"name"}),
}


def _check_params(skill: str, params: dict[str, Any]) -> None:
    required, allowed = SKILL_PARAMS[skill]
    if missing := required - set(params):
        raise TypeError(f"{skill} needs {', '.join(sorted(missing))}")
    if extra := set(params) - allowed:
        raise TypeError(f"{skill} takes no {', '.join(sorted(extra))}")


def _chunks(rid: str, created: int, reply: str) -> Iterator[str]:
    """The kept reply as OpenAI chat.completion.chunk events (server-sent events)."""

    def chunk(delta: dict[str, str], finish: str | None = None) -> str:
        body = {"id": rid, "object": "chat.completion.chunk", "created": created,
                "model": MODEL_ID,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return f"data: {json.dumps(body)}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    words = reply.split(" ")
    for i, word in enumerate(words):
        yield chunk({"content": word if i == 0 else " " + word})
    yield chunk({}, "stop")
    yield "data: [DONE]\n\n"
