-- 0003: memory in the same file as the event log, so a turn's commit is one transaction.
-- Seed 003 layers (resources -> items -> categories) with FTS5, seed 002's context store,
-- seed 000's companion memory (episodes, user facts, goals/open threads) and seed 004's
-- named knowledge bases. The FAISS index is derived from memory_items.embedding.

CREATE TABLE memory_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Layer 1: raw resources (<= 1 MB of text each).
CREATE TABLE memory_resources (
    id            INTEGER PRIMARY KEY,
    resource_id   TEXT NOT NULL UNIQUE,
    resource_type TEXT NOT NULL
        CHECK (resource_type IN ('conversation', 'document', 'config', 'feedback')),
    content       TEXT NOT NULL CHECK (length(content) BETWEEN 1 AND 1000000),
    content_hash  TEXT NOT NULL,
    metadata      TEXT NOT NULL DEFAULT '{}',
    created_at    TEXT NOT NULL
);
CREATE INDEX idx_memory_resources_type ON memory_resources (resource_type, created_at);
CREATE INDEX idx_memory_resources_hash ON memory_resources (content_hash);

-- Layer 2: extracted items; id is the FAISS id; embedding is float32 little-endian.
CREATE TABLE memory_items (
    id                  INTEGER PRIMARY KEY,
    item_id             TEXT NOT NULL UNIQUE,
    content             TEXT NOT NULL CHECK (length(content) >= 1),
    content_hash        TEXT NOT NULL,
    embedding           BLOB NOT NULL,
    source_resource_id  TEXT NOT NULL REFERENCES memory_resources (resource_id),
    source_turn_ids     TEXT NOT NULL DEFAULT '[]',
    category            TEXT,
    kind                TEXT NOT NULL DEFAULT 'fact',
    slot                TEXT,
    confidence          REAL NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    importance          TEXT NOT NULL DEFAULT 'normal'
        CHECK (importance IN ('low', 'normal', 'high')),
    created_at          TEXT NOT NULL,
    reinforcement_count INTEGER NOT NULL DEFAULT 0 CHECK (reinforcement_count >= 0),
    last_reinforced_at  TEXT,
    valid_at            TEXT NOT NULL,
    invalid_at          TEXT,
    invalidated_by      TEXT
);
CREATE INDEX idx_memory_items_resource ON memory_items (source_resource_id);
CREATE INDEX idx_memory_items_category ON memory_items (category, invalid_at);
CREATE INDEX idx_memory_items_hash ON memory_items (content_hash);
CREATE INDEX idx_memory_items_slot ON memory_items (slot, invalid_at);

-- Layer 3: categories; items link to a category through memory_items.category.
CREATE TABLE memory_categories (
    id                   INTEGER PRIMARY KEY,
    category_id          TEXT NOT NULL UNIQUE,
    name                 TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    description          TEXT NOT NULL CHECK (length(description) BETWEEN 10 AND 500),
    markdown_content     TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    last_consolidated_at TEXT,
    items_since_consolidation INTEGER NOT NULL DEFAULT 0
);

-- Lexical search (BM25) over items and resources: external-content FTS5 kept in sync by
-- triggers, so the text is stored once.
CREATE VIRTUAL TABLE memory_items_fts USING fts5 (
    content, content='memory_items', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_items_fts_ai AFTER INSERT ON memory_items BEGIN
    INSERT INTO memory_items_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER memory_items_fts_ad AFTER DELETE ON memory_items BEGIN
    INSERT INTO memory_items_fts (memory_items_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER memory_items_fts_au AFTER UPDATE OF content ON memory_items BEGIN
    INSERT INTO memory_items_fts (memory_items_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
    INSERT INTO memory_items_fts (rowid, content) VALUES (new.id, new.content);
END;

CREATE VIRTUAL TABLE memory_resources_fts USING fts5 (
    content, content='memory_resources', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_resources_fts_ai AFTER INSERT ON memory_resources BEGIN
    INSERT INTO memory_resources_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER memory_resources_fts_ad AFTER DELETE ON memory_resources BEGIN
    INSERT INTO memory_resources_fts (memory_resources_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
END;

-- Seed 002: the context store (column names as in the seed).
CREATE TABLE contexts (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    agent_id     TEXT,
    content      TEXT NOT NULL,
    compression  TEXT NOT NULL DEFAULT 'gzip' CHECK (compression IN ('gzip', 'none')),
    content_hash TEXT,
    embedding    TEXT,
    parent_ids   TEXT,
    metadata     TEXT,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    accessed_at  TEXT,
    access_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_context_type ON contexts (type);
CREATE INDEX idx_context_agent ON contexts (agent_id);
CREATE INDEX idx_context_expires ON contexts (expires_at);
CREATE INDEX idx_context_hash ON contexts (content_hash);

-- Seed 000: companion memory. Embeddings beside each row for dense recall.
CREATE TABLE memory_episodes (
    id           TEXT PRIMARY KEY,
    timestamp    TEXT NOT NULL,
    summary      TEXT NOT NULL CHECK (length(summary) BETWEEN 1 AND 500),
    emotions     TEXT NOT NULL DEFAULT '[]',
    participants TEXT NOT NULL DEFAULT '[]',
    tags         TEXT NOT NULL DEFAULT '[]',
    importance   REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0.0 AND 1.0),
    turn_id      INTEGER NOT NULL DEFAULT 0,
    session_id   TEXT NOT NULL DEFAULT '',
    embedding    BLOB
);
CREATE INDEX idx_memory_episodes_time ON memory_episodes (timestamp);

CREATE TABLE memory_user_facts (
    id             TEXT PRIMARY KEY,
    fact           TEXT NOT NULL CHECK (length(fact) BETWEEN 1 AND 300),
    category       TEXT NOT NULL,
    confidence     REAL NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    source         TEXT NOT NULL,
    first_observed TEXT NOT NULL,
    last_confirmed TEXT NOT NULL,
    evidence_count INTEGER NOT NULL DEFAULT 1 CHECK (evidence_count >= 1),
    fact_hash      TEXT NOT NULL,
    embedding      BLOB
);
CREATE INDEX idx_memory_user_facts_hash ON memory_user_facts (fact_hash);

CREATE TABLE memory_goals (
    id              TEXT PRIMARY KEY,
    kind            TEXT NOT NULL DEFAULT 'goal' CHECK (kind IN ('goal', 'open_thread')),
    title           TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 300),
    status          TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'dropped')),
    deadline        TEXT,
    notes           TEXT NOT NULL DEFAULT '',
    source_turn_ids TEXT NOT NULL DEFAULT '[]',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX idx_memory_goals_status ON memory_goals (status, deadline);

-- Seed 004: eight named knowledge bases of (id, vector, payload) points.
CREATE TABLE kb_points (
    kb_name    TEXT NOT NULL CHECK (kb_name IN
        ('kb_core', 'kb_skills', 'kb_1', 'kb_2', 'kb_3', 'kb_4', 'kb_5', 'kb_6')),
    point_id   TEXT NOT NULL CHECK (length(point_id) >= 1),
    vector     BLOB NOT NULL,
    payload    TEXT NOT NULL DEFAULT '{}',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kb_name, point_id)
);
