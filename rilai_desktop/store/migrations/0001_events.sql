-- 0001: the append-only event log.
CREATE TABLE events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id     TEXT    NOT NULL,
    turn_id        INTEGER NOT NULL CHECK (turn_id >= 0),
    seq            INTEGER NOT NULL CHECK (seq >= 0),
    ts_monotonic   REAL    NOT NULL,
    ts_wall        TEXT    NOT NULL,
    kind           TEXT    NOT NULL,
    payload        TEXT    NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT 1,
    UNIQUE (session_id, turn_id, seq)
);
