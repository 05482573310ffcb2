"""Memory: embeddings, the FAISS index, the three layers, retrieval, context store, journal.

Empty until the Memory issue lands.
"""
