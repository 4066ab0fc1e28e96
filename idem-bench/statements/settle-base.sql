-- settle.sql's batch lookup alone, to subtract.
SELECT nextval('bseq') % 20 AS b \gset
BEGIN;
SELECT count(*) FROM (SELECT id FROM batch_ids WHERE b = :b) y;
SELECT count(*) FROM (SELECT id FROM batch_ids WHERE b = :b) y;
COMMIT;
