-- The settlement of one batch of 500 one-shots whose deliveries became final, in one transaction: the ordered lock
-- PgCompletion.lockCounters takes (its three id arrays reduced to the batch's one: every schedule here is final and
-- has no failures), then Settlement.ofLockedSchedules' UPDATE (its id list as an array).
SELECT nextval('bseq') % 20 AS b \gset
BEGIN;
SELECT count(*) FROM (SELECT id, consecutive_failures, auto_pause_after, status, next_fire_at IS NULL FROM schedules WHERE id = ANY(ARRAY(SELECT id FROM batch_ids WHERE b = :b)) AND (consecutive_failures <> 0 OR (next_fire_at IS NULL AND status IN ('active','paused'))) ORDER BY id FOR UPDATE) x;
UPDATE schedules SET status = 'completed', updated_at = 1 WHERE id = ANY(ARRAY(SELECT id FROM batch_ids WHERE b = :b)) AND status = 'active' AND next_fire_at IS NULL AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.schedule_id = schedules.id AND d.status IN ('scheduled', 'retrying', 'delivering'));
COMMIT;
