"""The composition root: the one place that picks the real adapters and wires them.

``build`` assembles the engine packages (store, llm, memory, turn, daemon); the glue
adapters between their ports live beside it (``memory_bridge``, ``daemon_state``,
``nudge_facts``, ``maintenance_tasks``), because only the root may know two engine
packages at once. Clients (the CLI, the window, the API) hold what this builds.
"""
