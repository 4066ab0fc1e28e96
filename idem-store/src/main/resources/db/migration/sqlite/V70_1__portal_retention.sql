-- The pruner's indexes for the portal's tables (V70), oldest first, so a batch reads about what it deletes however many
-- rows the tables hold: sessions and links by expiry (a link is created per portal page view by most embedders, so
-- links pile up with traffic), audit entries by creation. None is on a column that changes, so no update loses HOT.
CREATE INDEX portal_sessions_expires ON portal_sessions (expires_at);
CREATE INDEX portal_access_expires ON portal_access (expires_at);
CREATE INDEX audit_log_created ON audit_log (created_at);
