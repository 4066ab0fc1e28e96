-- Event types, named uniquely per tenant. json_schema (JSON text, NULL: payloads are not checked) was checked
-- against its draft's meta-schema when stored; example is a JSON payload valid against it.
CREATE TABLE event_types (
    project_id  TEXT COLLATE "C" NOT NULL,
    mode        TEXT NOT NULL,
    name        TEXT COLLATE "C" NOT NULL,
    description TEXT,
    json_schema TEXT,
    example     TEXT,
    deprecated  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (project_id, mode, name)
);
