-- Node liveness (issue 11): see the PostgreSQL migration of the same version.
CREATE TABLE nodes (
    node_id       TEXT PRIMARY KEY,
    epoch         BIGINT NOT NULL,
    status        TEXT NOT NULL,
    started_at    BIGINT NOT NULL,
    renewed_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    taken_over_by TEXT,
    host          TEXT NOT NULL,
    machine       TEXT NOT NULL,
    pid           BIGINT NOT NULL,
    process_start BIGINT
);
