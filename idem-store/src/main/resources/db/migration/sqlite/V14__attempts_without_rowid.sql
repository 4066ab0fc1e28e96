-- Attempts are stored in the order of their key (delivery_id, id), WITHOUT ROWID: a delivery's attempts sit together
-- in the table's own B-tree, and the key's separate index (an entry per attempt, as large as the key) goes. An attempt
-- row is small (its response body is cut at 1 KiB), which is what such a table suits. PostgreSQL has no equivalent;
-- there the key stays an index beside the table.
CREATE TABLE attempts_clustered (
    id            TEXT NOT NULL,
    delivery_id   TEXT NOT NULL,
    number        INTEGER NOT NULL,
    started_at    BIGINT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    status_code   INTEGER,
    error         TEXT,
    response_body TEXT,
    PRIMARY KEY (delivery_id, id)
) WITHOUT ROWID;
INSERT INTO attempts_clustered (id, delivery_id, number, started_at, duration_ms, status_code, error, response_body)
SELECT id, delivery_id, number, started_at, duration_ms, status_code, error, response_body FROM attempts;
DROP TABLE attempts;
ALTER TABLE attempts_clustered RENAME TO attempts;
