-- JdbcDeliveryQueue.nextDueAt before stop 27, the backlog's destination full: every pending row up to the first of a
-- destination with a free slot, each one's schedule looked up.
SELECT q.next_attempt_at FROM deliveries q JOIN schedules qs ON qs.id = q.schedule_id WHERE q.status IN ('scheduled', 'retrying') AND qs.status NOT IN ('paused', 'deleted') AND NOT EXISTS (SELECT 1 FROM json_each_text(CAST('{"http://127.0.0.1:9999":0}' AS json)) c WHERE c.key = COALESCE(qs.destination, qs.id) AND CAST(c.value AS INTEGER) <= 0) ORDER BY q.next_attempt_at LIMIT 1;
