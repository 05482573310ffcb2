-- 0004: every turn retrievable as itself (issue 17). A turn record is a memory item of kind
-- 'turn' whose content is the turn's text; it keeps who said it and the dates its relative
-- expressions ("yesterday", "last year") resolve to against the session's date, as JSON
-- [{"phrase": "yesterday", "date": "2023-05-07"}]. Facts keep speaker NULL and '[]'.
ALTER TABLE memory_items ADD COLUMN speaker TEXT;
ALTER TABLE memory_items ADD COLUMN dates TEXT NOT NULL DEFAULT '[]';
CREATE INDEX idx_memory_items_kind ON memory_items (kind, speaker);
