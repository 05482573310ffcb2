-- 0006: a turn taken back (TURN_RETRACTED, logged at turn 0 by regenerate / edit-and-resend)
-- leaves the conversation, so it leaves message_search too: its user message and reply are
-- no longer messages of that conversation (restore and the projection leave them out; the
-- events stay in the log and the inspector still opens the turn). Nudges are kept.
CREATE TRIGGER message_search_retract AFTER INSERT ON events
WHEN new.kind = 'turn_retracted' AND json_type(new.payload, '$.turn_id') = 'integer' BEGIN
    DELETE FROM message_search
     WHERE session_id = new.session_id
       AND turn_id = json_extract(new.payload, '$.turn_id')
       AND role IN ('user', 'assistant');
END;

-- Turns already taken back before this migration.
DELETE FROM message_search
 WHERE role IN ('user', 'assistant')
   AND EXISTS (SELECT 1 FROM events r
                WHERE r.kind = 'turn_retracted'
                  AND r.session_id = message_search.session_id
                  AND json_extract(r.payload, '$.turn_id') = message_search.turn_id);
