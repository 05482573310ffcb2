"""`rilai bench api [--messages N] [--json]`: what the local API costs over the turn itself
(issue 29; docs/api.md).

On the real models, in a scratch data folder: each message is sent once through
`POST /v1/chat/completions` (httpx, over loopback, the bearer token, JSON both ways) and
once straight to the Engine in the same process, alternating. The overhead is paired: the
client's time for a request against the server-side time of *that same turn*
(``TurnResult.total_ms``), so reply length and the machine's noise cancel out (bar: p50
≤ 1.05). The in-process turns' p50 is printed beside it. A WebSocket client on `/events`
meanwhile counts what it receives: events, events per second of turn time, and drops.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from argparse import Namespace
from pathlib import Path
from typing import Any, Final

from rilai_desktop.cli.bench.turn_messages import MESSAGES, WARM_UP
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table

BAR_OVERHEAD: Final[float] = 1.05


class _Listener:
    """A WebSocket client on /events in a thread, counting what arrives."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.events: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-api-ws", daemon=True)

    def _run(self) -> None:
        import json

        from websockets.sync.client import connect

        with connect(self.url) as socket:
            self._ready.set()
            while not self._stop.is_set():
                try:
                    raw = socket.recv(timeout=0.2)
                except TimeoutError:
                    continue
                self.events.append(json.loads(raw))

    def start(self) -> _Listener:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def measure(engine: Any, count: int) -> dict[str, Any]:
    import httpx

    from rilai_desktop.api.server import ApiServer

    engine.send(WARM_UP).result()  # loads the models: not counted
    engine.runner.wait_warm()
    engine.reset()
    token = "bench-" + "x" * 40
    server = ApiServer(engine, token, port=0).start()
    listener = _Listener(server.url.replace("http://", "ws://") + f"/events?token={token}")
    listener.start()
    rows: list[dict[str, Any]] = []
    try:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=600
        ) as http:
            for message in MESSAGES[:count]:
                body = {"model": "rilai", "messages": [{"role": "user", "content": message}]}
                t0 = time.perf_counter()
                answer = http.post("/v1/chat/completions", json=body)
                api_ms = (time.perf_counter() - t0) * 1000
                answer.raise_for_status()
                served = engine.last_result.total_ms
                engine.runner.wait_warm()
                t0 = time.perf_counter()
                direct = engine.send(message).result()
                direct_ms = (time.perf_counter() - t0) * 1000
                engine.runner.wait_warm()
                rows.append({"message": message[:60], "api_ms": round(api_ms, 1),
                             "served_turn_ms": round(served, 1),
                             "ratio": round(api_ms / served, 4) if served else None,
                             "in_process_ms": round(direct_ms, 1),
                             "in_process_turn_ms": round(direct.total_ms, 1)})  # fmt: skip
    finally:
        time.sleep(0.5)  # the last events reach the client
        listener.stop()
        server.stop()
    return _report(rows, listener.events)


def _report(rows: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, Any]:
    def p50(key: str) -> float | None:
        values = [r[key] for r in rows if r.get(key) is not None]
        return round(statistics.median(values), 4) if values else None

    turn_s = sum(r["served_turn_ms"] + r["in_process_turn_ms"] for r in rows) / 1000
    ratio = p50("ratio")
    return {
        "messages": len(rows),
        "chat_overhead": {
            "ratio_p50": ratio,
            "api_ms_p50": p50("api_ms"),
            "served_turn_ms_p50": p50("served_turn_ms"),
            "overhead_ms_p50": round(
                statistics.median(r["api_ms"] - r["served_turn_ms"] for r in rows), 1
            )
            if rows
            else None,
            "in_process_ms_p50": p50("in_process_ms"),
        },
        "events": {
            "received": len(events),
            "per_second_of_turns": round(len(events) / turn_s, 2) if turn_s else None,
            "dropped": max((e.get("dropped", 0) for e in events), default=0),
            "kinds": sorted({str(e.get("event")) for e in events}),
        },
        "bar": {
            "ratio_max": BAR_OVERHEAD,
            "passed": ratio is not None and ratio <= BAR_OVERHEAD,
        },
        "per_message": rows,
    }


def run(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine

    count = max(1, min(int(getattr(args, "messages", None) or 4), len(MESSAGES)))
    with tempfile.TemporaryDirectory(prefix="rilai-bench-api-") as tmp:
        core = build_core(ctx.paths.scratch(Path(tmp)), ctx.loaded.settings)
        engine = open_engine(core)
        try:
            report = measure(engine, count)
        finally:
            engine.close()
    if ctx.json:
        emit_json(report)
    else:
        _print(report)
    return 0 if report["bar"]["passed"] else 1


def _print(report: dict[str, Any]) -> None:
    o, e = report["chat_overhead"], report["events"]
    print(f"rilai bench api — {report['messages']} messages, through the API and in-process")
    rows = [
        ["API request / the same turn (p50)", f"{o['ratio_p50']}× (bar ≤ {BAR_OVERHEAD})"],
        ["API overhead (p50)", f"{o['overhead_ms_p50']} ms"],
        ["API request p50", f"{o['api_ms_p50']} ms"],
        ["its turn p50", f"{o['served_turn_ms_p50']} ms"],
        ["in-process request p50", f"{o['in_process_ms_p50']} ms"],
        ["events received", str(e["received"])],
        ["events per second of turns", str(e["per_second_of_turns"])],
        ["events dropped", str(e["dropped"])],
    ]
    print(table(rows, ["measure", "value"]))
