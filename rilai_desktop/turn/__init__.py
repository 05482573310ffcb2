"""The society-of-mind turn: sensors, agents, deliberation, council, voice, critics, commit.

Talks only to ports; imports no llama_cpp, faiss, torch, sqlite3 or apscheduler.
Empty until the turn issue lands.
"""
