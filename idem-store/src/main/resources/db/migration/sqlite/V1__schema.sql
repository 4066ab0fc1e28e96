-- Times are epoch milliseconds (INTEGER); ids are text, compared in byte order (SQLite's default).

CREATE TABLE projects (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL REFERENCES projects (id),
    mode           TEXT NOT NULL,
    hash           TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    revoked_at     BIGINT
);
CREATE INDEX api_keys_project ON api_keys (project_id, created_at);

CREATE TABLE schedules (
    id                   TEXT PRIMARY KEY,
    project_id           TEXT NOT NULL,
    mode                 TEXT NOT NULL,
    status               TEXT NOT NULL,
    definition           TEXT NOT NULL,
    next_fire_at         BIGINT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    auto_pause_after     INTEGER NOT NULL,
    paused_reason        TEXT,
    last_sequence        BIGINT NOT NULL DEFAULT 0,
    dedup_id             TEXT,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
-- consecutive_failures and updated_at are in no index, so the per-outcome counter update is HOT.
CREATE INDEX schedules_tenant ON schedules (project_id, mode, id);
CREATE INDEX schedules_tenant_status ON schedules (project_id, mode, status, id);
CREATE INDEX schedules_dedup ON schedules (project_id, mode, dedup_id, created_at) WHERE dedup_id IS NOT NULL;
CREATE INDEX schedules_to_materialise ON schedules (next_fire_at) WHERE status = 'active' AND next_fire_at IS NOT NULL;

CREATE TABLE deliveries (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL,
    mode             TEXT NOT NULL,
    schedule_id      TEXT NOT NULL,
    scheduled_for    BIGINT NOT NULL,
    sequence         BIGINT NOT NULL,
    status           TEXT NOT NULL,
    attempt_count    INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  BIGINT,
    idempotency_key  TEXT NOT NULL,
    lease_owner      TEXT,
    lease_expires_at BIGINT,
    last_error       TEXT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    CONSTRAINT deliveries_occurrence UNIQUE (schedule_id, scheduled_for)
);
-- Only claimable rows are indexed for the dispatcher; lease_owner and lease_expires_at are in no
-- index so that extending a lease is a HOT update. The reaper scans the (few) delivering rows.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('scheduled', 'retrying');
CREATE INDEX deliveries_delivering ON deliveries (id) WHERE status = 'delivering';
CREATE INDEX deliveries_tenant ON deliveries (project_id, mode, id);
CREATE INDEX deliveries_tenant_status ON deliveries (project_id, mode, status, id);
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE status IN ('succeeded', 'dead', 'cancelled');

CREATE TABLE attempts (
    id            TEXT PRIMARY KEY,
    delivery_id   TEXT NOT NULL,
    number        INTEGER NOT NULL,
    started_at    BIGINT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    status_code   INTEGER,
    error         TEXT,
    response_body TEXT
);
CREATE INDEX attempts_delivery ON attempts (delivery_id, number);

CREATE TABLE signing_secrets (
    project_id          TEXT NOT NULL,
    mode                TEXT NOT NULL,
    current_secret      TEXT NOT NULL,
    previous_secret     TEXT,
    previous_expires_at BIGINT,
    PRIMARY KEY (project_id, mode)
);

CREATE TABLE idempotency_records (
    project_id      TEXT NOT NULL,
    mode            TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    locked_until    BIGINT,
    response_status INTEGER,
    response_body   BLOB,
    PRIMARY KEY (project_id, mode, idem_key)
);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
