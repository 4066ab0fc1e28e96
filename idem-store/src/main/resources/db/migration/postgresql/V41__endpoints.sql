-- Endpoints: the URLs a project's messages fan out to, of an application or of the project itself (application_id
-- NULL). event_types is a JSON array of names and prefixes (NULL: every event type), filter a JSON filter over the
-- payload (NULL: every payload), headers a JSON object. disabled_reason is NULL while the endpoint is enabled. A
-- deleted endpoint stays (its deliveries refer to it). Fan-out reads a tenant's (or an application's) active ones.
CREATE TABLE endpoints (
    id              TEXT COLLATE "C" PRIMARY KEY,
    project_id      TEXT COLLATE "C" NOT NULL,
    mode            TEXT NOT NULL,
    application_id  TEXT COLLATE "C",
    url             TEXT NOT NULL,
    description     TEXT,
    event_types     TEXT,
    filter          TEXT,
    headers         TEXT NOT NULL,
    rate_limit      INTEGER,
    disabled_reason TEXT,
    metadata        TEXT,
    deleted         BOOLEAN NOT NULL DEFAULT FALSE,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX endpoints_tenant ON endpoints (project_id, mode, id);
CREATE INDEX endpoints_application ON endpoints (project_id, mode, application_id, id);
CREATE INDEX endpoints_active ON endpoints (project_id, mode, id) WHERE disabled_reason IS NULL AND NOT deleted;
