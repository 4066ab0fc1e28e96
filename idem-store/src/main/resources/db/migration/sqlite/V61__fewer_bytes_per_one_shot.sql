-- Fewer bytes per one-shot. Every settled schedule of the API stays for the whole retention, so the indexes it sits in
-- cost bytes per delivery: the status listing's index now holds only schedules that are not completed (most rows, in
-- a tenant sending one-shots, are completed, and listing those reads the tenant index newest first and keeps the
-- completed ones, nearly every row it reads), and the dedup index goes: no query reads it (a dedup_id is reserved in
-- idempotency_records, whose key finds it).
DROP INDEX schedules_dedup;
DROP INDEX schedules_tenant_status;
CREATE INDEX schedules_tenant_status ON schedules (project_id, mode, status, id) WHERE origin IS NULL AND status <> 'completed';
