-- the burst's one-shots as the recorder finds them: every delivery final, the schedule still active
UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id LIKE 'dlv_b%';
UPDATE schedules SET status = 'active', updated_at = 0 WHERE id LIKE 'sch_b%';
VACUUM deliveries; VACUUM schedules;
DROP TABLE IF EXISTS batch_ids;
CREATE TABLE batch_ids AS SELECT (row_number() OVER (ORDER BY id) - 1) / 500 AS b, id FROM schedules WHERE id LIKE 'sch_b%';
CREATE INDEX ON batch_ids (b); ANALYZE batch_ids;
DROP SEQUENCE IF EXISTS bseq; CREATE SEQUENCE bseq MINVALUE 0 START 0;
