-- The dashboard counts a tenant's deliveries waiting for a retry (GET /v1/stats, up to a limit). Without an index of
-- their own that count reads every pending row of the due index, future one-shots included; this one holds only
-- retrying rows, and gains an entry only when a delivery goes retrying, an update that is never HOT anyway (status is
-- in the due index's predicate).
CREATE INDEX deliveries_retrying ON deliveries (project_id, mode) WHERE status = 'retrying';
