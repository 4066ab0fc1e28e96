-- The dashboard's lag and queue depth (GET /v1/stats) read one tenant's due rows. The due index holds every tenant's,
-- and the tenant index every row the tenant ever had, so either way the read walked other tenants' backlogs or the
-- tenant's own history before it found its own due rows. This index holds only pending rows, per tenant in due order:
-- the read starts at the tenant's earliest due row and stops at the cutoff. It gains an entry when a delivery is
-- written and when it goes retrying, as the due index does. Its predicate is the due index's word for word: SQLite
-- uses a partial index only when the query repeats it. (PostgreSQL has no such index: its planner did not choose it;
-- see JdbcStats.)
CREATE INDEX deliveries_tenant_due ON deliveries (project_id, mode, next_attempt_at)
    WHERE status IN ('scheduled', 'retrying');
