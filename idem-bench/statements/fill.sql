-- The burst's shape for run.sh: 200,000 finished one-shots (history) and 10,000 active ones due now to one
-- destination, each schedule with the definition the bench writes (423 bytes).
TRUNCATE schedules, deliveries CASCADE;
-- history: 200,000 completed one-shots with succeeded deliveries
INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, auto_pause_after, created_at, updated_at, destination)
SELECT 'sch_h' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'completed', '{"v":1,"endpoint":"http://127.0.0.1:41234/hook","timing":{"kind":"once","fire_at":1795770984282},"payload_json":null,"body":null,"content_type":"application/json","headers":{},"event_type":null,"idempotency_key":null,"dedup_id":null,"retry":{"max_attempts":8,"initial_backoff_ms":5000,"max_backoff_ms":36000000,"max_age_ms":86400000},"timeout_ms":30000,"auto_pause_after":5,"header_profile":"standard","metadata_json":null}', NULL, 0, 0, 0, 'http://127.0.0.1:9999' FROM generate_series(1, 200000) i;
INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, next_attempt_at, idempotency_key, created_at, updated_at)
SELECT 'dlv_h' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'sch_h' || lpad(i::text, 7, '0'), 1, 1, 'succeeded', 1, NULL, 'k', 0, 0 FROM generate_series(1, 200000) i;
-- the burst: 10,000 active one-shots due now
INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, auto_pause_after, created_at, updated_at, destination)
SELECT 'sch_b' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'active', '{"v":1,"endpoint":"http://127.0.0.1:41234/hook","timing":{"kind":"once","fire_at":1795770984282},"payload_json":null,"body":null,"content_type":"application/json","headers":{},"event_type":null,"idempotency_key":null,"dedup_id":null,"retry":{"max_attempts":8,"initial_backoff_ms":5000,"max_backoff_ms":36000000,"max_age_ms":86400000},"timeout_ms":30000,"auto_pause_after":5,"header_profile":"standard","metadata_json":null}', NULL, 0, 0, 0, 'http://127.0.0.1:9999' FROM generate_series(1, 10000) i;
INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, next_attempt_at, idempotency_key, created_at, updated_at)
SELECT 'dlv_b' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'sch_b' || lpad(i::text, 7, '0'), 1, 1, 'scheduled', 0, 1795694400000 - 1000, 'k', 0, 0 FROM generate_series(1, 10000) i;
VACUUM ANALYZE schedules; VACUUM ANALYZE deliveries;
