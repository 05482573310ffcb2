"""Rilai as a local service (issue 29): seed 004's API and agent-event stream, and an
OpenAI-compatible chat endpoint, served by FastAPI on uvicorn over the one ``Engine``.

- ``token.py``: the bearer token, 0600 in the config dir;
- ``schemas.py``: the request/response shapes (seed 004's, and the OpenAI chat subset);
- ``events.py``: EngineEvents → seed 004's ``AgentEvent`` union, and a bounded queue that
  drops the oldest for a slow client;
- ``app.py``: the ASGI app (auth, size limit, request events, the routes);
- ``server.py``: uvicorn in a thread (``rilai serve``, the window's switch, the tests).

The server adds no second path into the turn: every route calls the Engine a window or
the shell holds (docs/api.md).
"""
