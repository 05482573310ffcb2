"""The society-of-mind turn: sensors, agents, deliberation, council, voice, critics, commit.

``runner.py`` (TurnRunner) takes one message through the stages (docs/turn.md), which
``factory.py`` wires from ports (``ports.py``; the model port is ``contracts/llm.py``):

- ``sanitize.py`` (0), ``sensors/`` (1), the memory port for recall (2);
- ``agents/`` (3–5): agent selection, calls, grounding, and the wave stage;
- ``deliberation/`` (4–6): reducer, argument graph and rounds, the council;
- ``speaking/`` (6–7): the voice's prompt, the voice, the critics, the fallback reply;
- ``commit.py`` (8); ``session.py``, ``state.py``, ``result.py``, ``model_events.py``.

``prompts.py`` is the one reader of the ``prompts/`` folder: the composition root builds it
and hands it in; nothing here locates the folder. Talks only to ports; imports no
llama_cpp, faiss, torch, sqlite3 or apscheduler, and nothing from llm/, memory/, store/,
daemon/ or paths.
"""
