-- A replayed delivery gets one attempt; if it fails it is dead again (SPEC section 2, replay).
-- Not indexed: only read with the row.
ALTER TABLE deliveries ADD COLUMN replayed BOOLEAN NOT NULL DEFAULT FALSE;
