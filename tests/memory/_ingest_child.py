"""Child for the SIGKILL test: ingests sessions forever, printing each committed item id.

The index is saved once after the first session, then never again: when the parent kills
us, the saved index is stale (fewer items than SQLite) and must be detected on reopen.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager
from rilai_desktop.memory.types import Turn
from rilai_desktop.store import EventLog

FACTS = [
    "I love {} music on rainy evenings",
    "I need to call the {} office by Friday",
    "My favourite food is {} soup",
    "I've decided to learn {} this year",
    "Please don't ask me about {} again",
]
WORDS = ["jazz", "tax", "tomato", "piano", "work", "folk", "dentist", "lentil", "chess", "money"]


def main() -> None:
    home = Path(sys.argv[1])
    log = EventLog(home / "rilai.db")
    manager = MemoryManager(
        log,
        HashEmbedder(),
        storage_dir=home / "memory",
        categories_dir=home / "categories",
        events=log,
        config=MemoryConfig(storage_dir=home / "memory", auto_consolidate=False),
    )
    manager.open()
    n = 0
    while True:
        turns = []
        for j in range(5):
            word = f"{WORDS[(n + j) % len(WORDS)]}{n}"
            turns.append(Turn(id=f"s{n}-t{j}", speaker="user", text=FACTS[j].format(word)))
        result = manager.ingest_turns(turns, metadata={"session_id": f"s{n}"}, mode="rules")
        for item in result.stored:
            print(item.item_id, flush=True)
        if n == 0:
            manager.item_layer.save_index()
        n += 1


if __name__ == "__main__":
    main()
