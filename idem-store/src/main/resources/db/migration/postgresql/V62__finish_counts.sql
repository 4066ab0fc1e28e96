-- How many deliveries of each tenant finished (succeeded, went dead) in each second of the store's clock, added to by
-- the transaction that finishes them. The dashboard's counters over the last minute read at most 60 rows per tenant,
-- whatever the delivery rate and however much history the deliveries table holds; the pruner deletes rows past an
-- hour (by delivery_counts_second).
CREATE TABLE delivery_counts (
    project_id TEXT COLLATE "C" NOT NULL,
    mode       TEXT NOT NULL,
    at_second  BIGINT NOT NULL,
    succeeded  BIGINT NOT NULL,
    died       BIGINT NOT NULL,
    PRIMARY KEY (project_id, mode, at_second)
);
CREATE INDEX delivery_counts_second ON delivery_counts (at_second);
