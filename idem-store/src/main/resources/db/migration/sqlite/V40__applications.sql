-- Applications: a project's customers, each owning endpoints. uid is the caller's own id for one, unique among the
-- tenant's applications that are not deleted (deleting one frees its uid); the API finds one by id or by uid. A
-- deleted application stays (its endpoints and their deliveries refer to it).
CREATE TABLE applications (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL,
    mode       TEXT NOT NULL,
    uid        TEXT,
    name       TEXT NOT NULL,
    metadata   TEXT,
    rate_limit INTEGER,
    deleted    INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX applications_tenant ON applications (project_id, mode, id);
CREATE UNIQUE INDEX applications_uid ON applications (project_id, mode, uid) WHERE uid IS NOT NULL AND NOT deleted;
