-- full.sh: 100 one-shots of another destination, due 5 s after the statements' clock, after fill.sql's rows.
INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, auto_pause_after, created_at, updated_at, destination)
SELECT 'sch_o' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'active', '{}', NULL, 0, 0, 0, 'http://127.0.0.1:8888' FROM generate_series(1, 100) i;
INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, next_attempt_at, idempotency_key, created_at, updated_at)
SELECT 'dlv_o' || lpad(i::text, 7, '0'), 'prj_1', 'live', 'sch_o' || lpad(i::text, 7, '0'), 1, 1, 'scheduled', 0, 1795694400000 + 5000 + i, 'k', 0, 0 FROM generate_series(1, 100) i;
VACUUM ANALYZE schedules; VACUUM ANALYZE deliveries;
