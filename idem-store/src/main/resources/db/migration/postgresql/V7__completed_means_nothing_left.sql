-- "completed" now means nothing remains to attempt (the rule has ended and every delivery is final). Before, a
-- schedule was completed as soon as its last occurrence was written, so a one-shot read "completed" before it fired.
-- Schedules in that state with a delivery still pending are active again; the engine completes them when their last
-- delivery becomes final.
UPDATE schedules SET status = 'active'
WHERE status = 'completed'
  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.schedule_id = schedules.id AND d.status IN ('scheduled', 'retrying', 'delivering'));
