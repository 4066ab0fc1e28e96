-- A paused schedule's pending deliveries (a user's pause, an auto-pause, every one-shot of a disabled endpoint) stayed
-- in the due indexes, at their head when they were due: every claim, every look-ahead and the tenant's stats walked
-- past all of them, looking up each one's schedule, before they found a claimable row. Such a row is now marked held
-- while its schedule is paused, and the due indexes leave held rows out, so a held backlog costs a claim nothing.
--
-- The mark is kept by the database, beside the status it follows: triggers mark a schedule's pending deliveries when
-- the schedule enters 'paused' and clear every mark of the schedule when it leaves 'paused', in the statement that
-- moves it, whichever code path that is. So a held row's schedule is always paused (a held row whose schedule runs
-- would never be claimed). Rows written pending while their schedule is already paused (a replay to a disabled
-- endpoint, an attempt that ends in a retry after the pause) are not marked: the claim's own filter on the schedule's
-- status still leaves them out, they are merely walked as before. The queries that read the indexes repeat their
-- predicates word for word (SQLite uses a partial index only then).
ALTER TABLE deliveries ADD COLUMN held INTEGER;

CREATE TRIGGER schedules_pause_holds AFTER UPDATE OF status ON schedules
    WHEN NEW.status = 'paused' AND OLD.status <> 'paused'
BEGIN
    UPDATE deliveries SET held = 1
        WHERE schedule_id = NEW.id AND status IN ('scheduled', 'retrying') AND held IS NULL;
END;

CREATE TRIGGER schedules_unpause_releases AFTER UPDATE OF status ON schedules
    WHEN OLD.status = 'paused' AND NEW.status <> 'paused'
BEGIN
    UPDATE deliveries SET held = NULL WHERE schedule_id = NEW.id AND held IS NOT NULL;
END;

-- the pending rows of schedules paused before this migration
UPDATE deliveries SET held = 1
    WHERE status IN ('scheduled', 'retrying')
      AND schedule_id IN (SELECT id FROM schedules WHERE status = 'paused');

DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('scheduled', 'retrying') AND held IS NULL;
DROP INDEX deliveries_tenant_due;
CREATE INDEX deliveries_tenant_due ON deliveries (project_id, mode, next_attempt_at)
    WHERE status IN ('scheduled', 'retrying') AND held IS NULL;
