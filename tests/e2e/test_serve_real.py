"""Issue 29 end to end: `rilai serve` as its own process on a free loopback port, on the
real models. The OpenAI client gets a companion turn, a WebSocket client sees that turn's
events in order, and a request without the token is refused."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

pytestmark = pytest.mark.e2e


def test_rilai_serve_answers_real_clients(real_models: Path, rilai_home: Path) -> None:
    from openai import OpenAI

    from rilai_desktop.api.server import free_port

    env = {**os.environ, "RILAI_HOME": str(rilai_home), "RILAI_MODELS_DIR": str(real_models)}
    token = subprocess.run(
        [sys.executable, "-m", "rilai_desktop", "serve", "--show-token"],
        env=env, capture_output=True, text=True, check=True, timeout=120,
    ).stdout.strip()  # fmt: skip
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "rilai_desktop", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/v1/models", timeout=2).status_code == 401:
                    break  # listening, and refusing a request without the token
            except httpx.HTTPError:
                pass
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            assert time.monotonic() < deadline, "rilai serve did not start"
            time.sleep(0.5)
        ai = OpenAI(base_url=f"{base}/v1", api_key=token, timeout=600)
        reply = ai.chat.completions.create(
            model="rilai", messages=[{"role": "user", "content": "hi, I just got home from work"}]
        )
        text = reply.choices[0].message.content or ""
        print(f"\n  < {text}")
        assert text.strip()

        async def watch() -> list[dict[str, Any]]:
            got: list[dict[str, Any]] = []
            async with websockets.connect(f"ws://127.0.0.1:{port}/events?token={token}") as ws:
                await asyncio.sleep(0.3)
                headers = {"Authorization": f"Bearer {token}"}
                async with httpx.AsyncClient(timeout=600) as http:
                    call = asyncio.create_task(
                        http.post(
                            f"{base}/rlm", json={"query": "it rained all day"}, headers=headers
                        )
                    )
                    while not got or got[-1]["event"] != "session_ended":
                        got.append(json.loads(await asyncio.wait_for(ws.recv(), 600)))
                    answer = await call
                assert answer.status_code == 200 and answer.json()["converged"] is True
            return got

        events = asyncio.run(watch())
        kinds = [e["event"] for e in events]
        assert kinds[0] == "session_started" and kinds[-1] == "session_ended"
        assert "converged" in kinds and len({e["reasoning_id"] for e in events}) == 1
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        if server.stderr is not None:
            server.stderr.close()
