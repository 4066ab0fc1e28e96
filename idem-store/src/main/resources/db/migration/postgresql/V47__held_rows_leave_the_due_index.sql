-- A paused schedule's pending deliveries (a user's pause, an auto-pause, every one-shot of a disabled endpoint) stayed
-- in the due index, at its head when they were due: every claim, every look-ahead and every tenant's stats walked past
-- all of them, looking up each one's schedule, before they found a claimable row. Such a row is now marked held while
-- its schedule is paused, and the due index leaves held rows out, so a held backlog costs a claim nothing.
--
-- The mark is kept by the database, beside the status it follows: a trigger marks a schedule's pending deliveries
-- when the schedule enters 'paused' and clears every mark of the schedule when it leaves 'paused', in the statement
-- that moves it, whichever code path that is. So a held row's schedule is always paused (a held row whose schedule
-- runs would never be claimed). Rows written pending while their schedule is already paused (a replay to a disabled
-- endpoint, an attempt that ends in a retry after the pause) are not marked: the claim's own filter on the schedule's
-- status still leaves them out, they are merely walked as before.
--
-- The trigger locks a schedule's pending deliveries after the schedule. Neither other writer of pending rows waits for
-- it in turn: a claim locks pending rows and never waits for a schedule, and an outcome, which locks a delivery and then
-- its schedule, holds a row that is not pending in the snapshot the trigger's update reads (it is delivering).
ALTER TABLE deliveries ADD COLUMN held BOOLEAN;

CREATE FUNCTION idem_follow_schedule_pause() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status = 'paused' THEN
        UPDATE deliveries SET held = TRUE
            WHERE schedule_id = NEW.id AND status IN ('scheduled', 'retrying') AND held IS NULL;
    ELSE
        UPDATE deliveries SET held = NULL WHERE schedule_id = NEW.id AND held IS NOT NULL;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER schedules_follow_pause AFTER UPDATE OF status ON schedules FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status AND (OLD.status = 'paused' OR NEW.status = 'paused'))
    EXECUTE FUNCTION idem_follow_schedule_pause();

-- the pending rows of schedules paused before this migration
UPDATE deliveries SET held = TRUE
    WHERE status IN ('scheduled', 'retrying')
      AND schedule_id IN (SELECT id FROM schedules WHERE status = 'paused');

DROP INDEX deliveries_due;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('scheduled', 'retrying') AND held IS NULL;
