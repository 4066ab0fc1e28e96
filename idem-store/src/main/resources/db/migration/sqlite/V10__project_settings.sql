-- Per-tenant settings (issue 13, alerts): see the PostgreSQL migration of the same version.
CREATE TABLE project_settings (
    project_id     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    alert_endpoint TEXT,
    alert_events   TEXT NOT NULL,
    updated_at     BIGINT NOT NULL,
    PRIMARY KEY (project_id, mode)
);
