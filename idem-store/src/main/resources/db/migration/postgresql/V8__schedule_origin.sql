-- Issues 13.5 and 14: one-shots Idem makes itself (an inbound source's event, an alert) are schedules like any other
-- (claim, retries, dead-letter, replay), marked by origin ('source', 'alert'; NULL for a schedule made through the
-- API) and, for a source's event, its source id. Users' lists show only origin IS NULL: the tenant indexes become
-- partial on it, so internal one-shots (possibly many more than the user's schedules) neither slow those lists nor
-- cost an entry in them at insert.
ALTER TABLE schedules ADD COLUMN origin TEXT;
ALTER TABLE schedules ADD COLUMN source_id TEXT COLLATE "C";
DROP INDEX schedules_tenant;
DROP INDEX schedules_tenant_status;
CREATE INDEX schedules_tenant ON schedules (project_id, mode, id) WHERE origin IS NULL;
CREATE INDEX schedules_tenant_status ON schedules (project_id, mode, status, id) WHERE origin IS NULL;
CREATE INDEX schedules_source ON schedules (source_id, id) WHERE source_id IS NOT NULL;
