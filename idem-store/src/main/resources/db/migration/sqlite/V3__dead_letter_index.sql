-- Every non-HOT update of a delivery writes an entry into each index whose predicate it meets, so
-- the queue keeps as few indexes as its reads need. Listing by status was served by an index on
-- (tenant, status, id), touched by every claim and outcome; the dead-letter queue is the status
-- listing that must stay fast, so it gets a small partial index touched only when a delivery dies
-- or is replayed. Other status filters scan the tenant's index newest first.
DROP INDEX deliveries_tenant_status;
CREATE INDEX deliveries_dead ON deliveries (project_id, mode, id) WHERE status = 'dead';
