-- 0002: events by kind (queries, projections, the aborted-turn scan on open) and by time.
CREATE INDEX idx_events_kind ON events (kind, session_id, turn_id);
CREATE INDEX idx_events_ts_wall ON events (ts_wall);
