"""What MemoryManager does, by responsibility (the manager is the facade over them).

``core.py``: ``MemoryCore``, what every operation shares: the layers, the event binding
(session and turn), the write transaction whose side effects follow its rollback, and the
embedder behind the seed's retry policy. ``ingest.py``: resources in, items extracted and
stored (one conversation, a batch of them, a fact told with ``remember``).
``edits.py``: the user's corrections and deletions, and retention of old raw text.
``pages.py``: the category pages (layer 3): create, render, consolidate. ``search.py``:
retrieval (RAG, LLM, hybrid) and its debug event. ``upkeep.py``: the vector index's
lifecycle, stats, health and export. ``turn_journal.py``: seed 002 in the running app —
each turn's artefacts in the context store and its entry in the day's journal, consolidated
pages promoted to long-term.md.
"""
