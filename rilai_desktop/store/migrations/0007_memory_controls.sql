-- 0007: what the person decided about each memory entry (issue 20: memory the person
-- controls). Both tables are projections of the log's memory.entry_changed events (the
-- minimum to replay: kind, id, the change; never a forgotten text) and are rebuilt from it.
--   kind: 'item' (memory_items, turn records included), 'fact' (memory_user_facts),
--         'episode' (memory_episodes), 'goal' (memory_goals: threads and goals)
CREATE TABLE memory_controls (
    kind         TEXT    NOT NULL CHECK (kind IN ('item', 'fact', 'episode', 'goal')),
    entry_id     TEXT    NOT NULL,
    paused       INTEGER NOT NULL DEFAULT 0,  -- kept, never recalled
    pinned       INTEGER NOT NULL DEFAULT 0,  -- always considered
    last_used_at TEXT,                        -- the last reply whose prompt held it
    updated_at   TEXT    NOT NULL,
    PRIMARY KEY (kind, entry_id)
);

-- "Not relevant" under a reply's "why": the entry is lowered for queries like this one
-- (the query's embedding is kept, not its words).
CREATE TABLE memory_feedback (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    kind            TEXT    NOT NULL CHECK (kind IN ('item', 'fact', 'episode', 'goal')),
    entry_id        TEXT    NOT NULL,
    query_embedding BLOB    NOT NULL,
    created_at      TEXT    NOT NULL
);
CREATE INDEX memory_feedback_entry ON memory_feedback (kind, entry_id);
