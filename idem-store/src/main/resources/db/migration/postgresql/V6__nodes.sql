-- Node liveness (issue 11): one row per node id, renewed by its node every few seconds on the database
-- clock. A node silent past the takeover window is declared dead by a live one, which returns its
-- claims to the queue in the same transaction. Claims are leased to '<node_id>#<epoch>': each start
-- (and each rejoin after being declared dead) is a new epoch, so a late outcome of a lost claim is
-- stale. ended_at is set when the incarnation was declared dead or stopped.
CREATE TABLE nodes (
    node_id       TEXT COLLATE "C" PRIMARY KEY,
    epoch         BIGINT NOT NULL,
    status        TEXT NOT NULL,
    started_at    BIGINT NOT NULL,
    renewed_at    BIGINT NOT NULL,
    ended_at      BIGINT,
    taken_over_by TEXT,
    host          TEXT NOT NULL,
    machine       TEXT NOT NULL,
    pid           BIGINT NOT NULL,
    process_start BIGINT
);
-- A few rows renewed every two seconds each: room on the page keeps every renewal a HOT update.
ALTER TABLE nodes SET (fillfactor = 50);
