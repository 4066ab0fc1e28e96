-- Issue 14: inbound sources. The secret is the provider's signing secret, kept as given (verifying an HMAC needs it),
-- as signing_secrets keeps Idem's own; the API never returns it. previous_secret verifies until previous_expires_at
-- after a rotation. Ingest looks a source up by id alone (the primary key); lists go by tenant.
CREATE TABLE sources (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL,
    mode                TEXT NOT NULL,
    name                TEXT NOT NULL,
    scheme              TEXT NOT NULL,
    secret              TEXT NOT NULL,
    previous_secret     TEXT,
    previous_expires_at BIGINT,
    header              TEXT,
    encoding            TEXT,
    tolerance_ms        BIGINT NOT NULL,
    destination         TEXT NOT NULL,
    dedup               TEXT NOT NULL,
    rate_limit          INTEGER NOT NULL,
    deleted             INTEGER NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX sources_tenant ON sources (project_id, mode, id);
