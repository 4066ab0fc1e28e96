-- A replayed delivery gets one attempt; if it fails it is dead again (SPEC section 2, replay).
ALTER TABLE deliveries ADD COLUMN replayed INTEGER NOT NULL DEFAULT 0;
