-- settle.sql's lock alone.
SELECT nextval('bseq') % 20 AS b \gset
BEGIN;
SELECT count(*) FROM (SELECT id, consecutive_failures, auto_pause_after, status, next_fire_at IS NULL FROM schedules WHERE id = ANY(ARRAY(SELECT id FROM batch_ids WHERE b = :b)) AND (consecutive_failures <> 0 OR (next_fire_at IS NULL AND status IN ('active','paused'))) ORDER BY id FOR UPDATE) x;
COMMIT;
