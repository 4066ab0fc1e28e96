-- Fewer index bytes per delivery (the PostgreSQL migration of the same version says why): attempts keyed by
-- (delivery_id, id), one index instead of the key on id and the index on (delivery_id, number); the delivering rows'
-- partial index keyed on the 8-byte scheduled_for. SQLite changes a table's key only by copying the table.
CREATE TABLE attempts_by_delivery (
    id            TEXT NOT NULL,
    delivery_id   TEXT NOT NULL,
    number        INTEGER NOT NULL,
    started_at    BIGINT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    status_code   INTEGER,
    error         TEXT,
    response_body TEXT,
    PRIMARY KEY (delivery_id, id)
);
INSERT INTO attempts_by_delivery (id, delivery_id, number, started_at, duration_ms, status_code, error, response_body)
SELECT id, delivery_id, number, started_at, duration_ms, status_code, error, response_body FROM attempts;
DROP TABLE attempts;
ALTER TABLE attempts_by_delivery RENAME TO attempts;

DROP INDEX deliveries_delivering;
CREATE INDEX deliveries_delivering ON deliveries (scheduled_for) WHERE status = 'delivering';
