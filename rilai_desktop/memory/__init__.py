"""Memory (docs/memory-design.md): seed 003's three layers and seeds 000/002/004 beside them.

``manager.py`` (MemoryManager) is the facade every caller uses, over ``operations/``;
layers: ``resources.py`` (raw conversations), ``items.py`` / ``item_search.py`` (facts and
turn records, FTS5 + FAISS via ``vector_index.py``), ``categories.py`` (markdown pages);
``extraction/`` and ``retrieval/``; ``relationship/`` (episodes, user facts, goals);
``knowledge_bases.py`` (seed 004's named KBs), ``context_store.py`` and ``journal.py``
(seed 002), ``browse.py`` (reads for people through ``tables.py``'s SQLModel classes),
``embedding.py`` (MiniLM, HashEmbedder), ``embedding_onnx.py`` (MiniLM on onnxruntime).
Talks to the event log and the models only through ``ports.py`` and ``contracts/``.
"""
