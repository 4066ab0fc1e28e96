-- Applications: a project's customers, each owning endpoints. uid is the caller's own id for one, unique among the
-- tenant's applications that are not deleted (deleting one frees its uid); the API finds one by id or by uid. A
-- deleted application stays (its endpoints and their deliveries refer to it).
CREATE TABLE applications (
    id         TEXT COLLATE "C" PRIMARY KEY,
    project_id TEXT COLLATE "C" NOT NULL,
    mode       TEXT NOT NULL,
    uid        TEXT COLLATE "C",
    name       TEXT NOT NULL,
    metadata   TEXT,
    rate_limit INTEGER,
    deleted    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX applications_tenant ON applications (project_id, mode, id);
CREATE UNIQUE INDEX applications_uid ON applications (project_id, mode, uid) WHERE uid IS NOT NULL AND NOT deleted;
