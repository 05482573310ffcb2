-- 0005: search over past messages (issue 19). message_search is a projection of the event
-- log: the messages a conversation shows, exactly as turn/session.py's restore rebuilds them
--   * the person's words: TURN_STARTED user_input, once the turn has a TURN_COMPLETED
--     (an aborted or cancelled turn is not part of the conversation, so not searchable);
--   * Rilai's reply: TURN_COMPLETED response (a turn that stayed quiet has none);
--   * a nudge the person saw inline: PROACTIVE_NUDGE at level >= 3 whose context says
--     delivered, its suggestion (or, failing that, its reason).
-- Each row's rowid is the id of the event its words come from, so deleting events
-- (EventLog.delete_session / delete_all, or a later migration retracting a turn) removes
-- its rows by rowid, and ordering by rowid is the log's order.
--
-- An ordinary FTS5 table (it keeps its own copy of the text) rather than external content:
-- the text lives inside JSON payloads and the person's words are indexed when another event
-- (the turn's TURN_COMPLETED) arrives, which an external-content table cannot express
-- without a view whose 'delete' commands must repeat the old text exactly. Messages are
-- short; the copy costs little and snippet() reads it directly.
--
-- Tokenizer: unicode61 with diacritics folded (cafe finds café), no porter stemmer: the
-- search runs as you type with prefix queries, and a stemmed index would miss a whole word
-- ("happy"* against the stem "happi"). prefix='2 3' makes short prefixes cheap.
CREATE VIRTUAL TABLE message_search USING fts5 (
    text,
    session_id UNINDEXED,
    turn_id UNINDEXED,
    role UNINDEXED,
    ts_wall UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

CREATE TRIGGER message_search_turn_completed AFTER INSERT ON events
WHEN new.kind = 'turn_completed' BEGIN
    INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
    SELECT s.id, json_extract(s.payload, '$.user_input'), s.session_id, s.turn_id, 'user',
           s.ts_wall
      FROM events s
     WHERE s.session_id = new.session_id AND s.turn_id = new.turn_id
       AND s.kind = 'turn_started'
       AND json_type(s.payload, '$.user_input') = 'text'
       AND trim(json_extract(s.payload, '$.user_input')) != ''
       AND NOT EXISTS (SELECT 1 FROM message_search m WHERE m.rowid = s.id);
    INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
    SELECT new.id, json_extract(new.payload, '$.response'), new.session_id, new.turn_id,
           'assistant', new.ts_wall
     WHERE json_type(new.payload, '$.response') = 'text'
       AND trim(json_extract(new.payload, '$.response')) != '';
END;

CREATE TRIGGER message_search_nudge AFTER INSERT ON events
WHEN new.kind = 'proactive_nudge'
 AND json_type(new.payload, '$.level') = 'integer'
 AND json_extract(new.payload, '$.level') >= 3
 AND json_type(new.payload, '$.context.delivered') = 'true' BEGIN
    INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
    SELECT new.id, words, new.session_id, new.turn_id, 'nudge', new.ts_wall
      FROM (SELECT coalesce(
                nullif(trim(CASE WHEN json_type(new.payload, '$.suggestion') = 'text'
                                 THEN json_extract(new.payload, '$.suggestion') END), ''),
                nullif(trim(CASE WHEN json_type(new.payload, '$.reason') = 'text'
                                 THEN json_extract(new.payload, '$.reason') END), '')
            ) AS words)
     WHERE words IS NOT NULL;
END;

CREATE TRIGGER message_search_forget AFTER DELETE ON events
WHEN old.kind IN ('turn_started', 'turn_completed', 'proactive_nudge') BEGIN
    DELETE FROM message_search WHERE rowid = old.id;
END;

-- What the log already holds: an older database gets its history searchable.
INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
SELECT s.id, json_extract(s.payload, '$.user_input'), s.session_id, s.turn_id, 'user', s.ts_wall
  FROM events s
 WHERE s.kind = 'turn_started'
   AND json_type(s.payload, '$.user_input') = 'text'
   AND trim(json_extract(s.payload, '$.user_input')) != ''
   AND EXISTS (SELECT 1 FROM events c
                WHERE c.kind = 'turn_completed'
                  AND c.session_id = s.session_id AND c.turn_id = s.turn_id);

INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
SELECT c.id, json_extract(c.payload, '$.response'), c.session_id, c.turn_id, 'assistant',
       c.ts_wall
  FROM events c
 WHERE c.kind = 'turn_completed'
   AND json_type(c.payload, '$.response') = 'text'
   AND trim(json_extract(c.payload, '$.response')) != '';

INSERT INTO message_search (rowid, text, session_id, turn_id, role, ts_wall)
SELECT id, words, session_id, turn_id, 'nudge', ts_wall
  FROM (SELECT id, session_id, turn_id, ts_wall, coalesce(
            nullif(trim(CASE WHEN json_type(payload, '$.suggestion') = 'text'
                             THEN json_extract(payload, '$.suggestion') END), ''),
            nullif(trim(CASE WHEN json_type(payload, '$.reason') = 'text'
                             THEN json_extract(payload, '$.reason') END), '')
        ) AS words
          FROM events
         WHERE kind = 'proactive_nudge'
           AND json_type(payload, '$.level') = 'integer'
           AND json_extract(payload, '$.level') >= 3
           AND json_type(payload, '$.context.delivered') = 'true')
 WHERE words IS NOT NULL;
