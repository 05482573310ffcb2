-- 0008: the dedupe lookup of a new fact ("is this text already stored?") by its hash.
-- Turn records share a hash whenever a message recurs ("How are you?"), so the plain hash
-- index made that lookup visit every such record: over a long log it grew with each turn.
-- This index holds only the rows the lookup can match (memory/items.py: _store_one).
CREATE INDEX idx_memory_items_fact_hash ON memory_items (content_hash)
    WHERE kind != 'turn' AND invalid_at IS NULL;
