-- Per-tenant settings (issue 13, alerts): where operational alerts go and which events raise one.
-- A tenant without a row has the defaults: no alert endpoint, every event chosen.
-- alert_events is a comma-separated list of event names ('' = none).
CREATE TABLE project_settings (
    project_id     TEXT COLLATE "C" NOT NULL,
    mode           TEXT NOT NULL,
    alert_endpoint TEXT,
    alert_events   TEXT NOT NULL,
    updated_at     BIGINT NOT NULL,
    PRIMARY KEY (project_id, mode)
);
