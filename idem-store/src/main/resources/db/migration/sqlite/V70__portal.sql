-- Portal links: only the SHA-256 of a link's token is kept (like API keys). A link reaches one application with the
-- capabilities it lists (comma-separated names) until it expires or is revoked; session is the creator's label.
CREATE TABLE portal_access (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    application_id TEXT NOT NULL,
    hash           TEXT NOT NULL UNIQUE,
    capabilities   TEXT NOT NULL,
    session        TEXT,
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    revoked_at     BIGINT
);
CREATE INDEX portal_access_application ON portal_access (project_id, mode, application_id);

-- The short sessions a portal page opens with a link's token, so that the token itself travels once. A session is
-- valid while its link is: revoking the link ends it.
CREATE TABLE portal_sessions (
    id         TEXT PRIMARY KEY,
    access_id  TEXT NOT NULL REFERENCES portal_access (id),
    hash       TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX portal_sessions_access ON portal_sessions (access_id);

-- A tenant's portal branding and the origins allowed to embed the portal (space-separated), once it saved them.
CREATE TABLE portal_settings (
    project_id      TEXT NOT NULL,
    mode            TEXT NOT NULL,
    display_name    TEXT,
    primary_color   TEXT,
    logo_url        TEXT,
    support_url     TEXT,
    frame_ancestors TEXT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (project_id, mode)
);

-- What portal sessions changed: which link (and its label), the action, the object, the names of the fields given.
CREATE TABLE audit_log (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL,
    mode           TEXT NOT NULL,
    application_id TEXT,
    access_id      TEXT,
    session        TEXT,
    action         TEXT NOT NULL,
    object_id      TEXT,
    fields         TEXT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX audit_log_tenant ON audit_log (project_id, mode, id);
CREATE INDEX audit_log_application ON audit_log (project_id, mode, application_id, id);
