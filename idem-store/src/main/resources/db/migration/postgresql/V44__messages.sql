-- Messages: a project's events, each stored once and fanned out to the endpoints subscribed when it was sent. payload
-- is the JSON text every delivery sends verbatim; deliveries is how many endpoints it went to. A scheduled fan-out's
-- occurrence has an id derived from (schedule_id, scheduled_for), so the primary key makes it one message whatever
-- the number of nodes or retries. Lists go newest first by tenant, optionally by event type or application.
CREATE TABLE messages (
    id              TEXT COLLATE "C" PRIMARY KEY,
    project_id      TEXT COLLATE "C" NOT NULL,
    mode            TEXT NOT NULL,
    event_type      TEXT COLLATE "C" NOT NULL,
    application_id  TEXT COLLATE "C",
    payload         TEXT NOT NULL,
    idempotency_key TEXT,
    dedup_id        TEXT,
    schedule_id     TEXT COLLATE "C",
    scheduled_for   BIGINT,
    deliveries      INTEGER NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX messages_tenant ON messages (project_id, mode, id);
CREATE INDEX messages_event_type ON messages (project_id, mode, event_type, id);
CREATE INDEX messages_application ON messages (project_id, mode, application_id, id) WHERE application_id IS NOT NULL;
-- A delivery of a message names it and the endpoint it goes to; both NULL for every other delivery. The indexes are
-- partial, so a schedule's deliveries pay nothing for them; neither column is ever updated (HOT updates stay HOT).
ALTER TABLE deliveries ADD COLUMN message_id TEXT COLLATE "C";
ALTER TABLE deliveries ADD COLUMN endpoint_id TEXT COLLATE "C";
CREATE INDEX deliveries_message ON deliveries (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, id) WHERE endpoint_id IS NOT NULL;
