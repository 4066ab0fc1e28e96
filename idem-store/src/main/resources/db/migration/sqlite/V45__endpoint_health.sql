-- How each endpoint's attempts have gone, kept up to date by the transaction that records their outcomes: a day-long
-- window's counts and the previous window's (the success rate), the last success and failure, and since when every
-- attempt has failed (failing_since, null once one succeeds), which disables the endpoint after the project's
-- disable_after. A row appears with an endpoint's first attempt.
CREATE TABLE endpoint_health (
    endpoint_id       TEXT PRIMARY KEY,
    project_id        TEXT NOT NULL,
    mode              TEXT NOT NULL,
    window_start      BIGINT NOT NULL,
    attempts          INTEGER NOT NULL,
    failures          INTEGER NOT NULL,
    previous_attempts INTEGER NOT NULL,
    previous_failures INTEGER NOT NULL,
    last_success_at   BIGINT,
    failing_since     BIGINT,
    last_failure_at   BIGINT,
    last_failure      TEXT
);
-- disable_after in milliseconds; NULL keeps the default (5 days).
ALTER TABLE project_settings ADD COLUMN disable_after_ms BIGINT;
