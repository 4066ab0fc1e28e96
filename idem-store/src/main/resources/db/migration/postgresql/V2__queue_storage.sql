-- The queue tables churn: every delivery is updated several times and then pruned. Free space on
-- each page lets an update that changes no indexed column (the schedule's failure counter, a lease
-- extension) stay on its page as a HOT update, and vacuuming early keeps the SKIP LOCKED scans from
-- wading through dead rows.
ALTER TABLE schedules SET (fillfactor = 90);
ALTER TABLE deliveries SET (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE attempts SET (autovacuum_vacuum_scale_factor = 0.05);
