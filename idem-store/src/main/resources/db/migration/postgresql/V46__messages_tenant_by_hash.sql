-- The messages' tenant list index keyed on the 8-byte hash of project and mode, as the schedules' and deliveries' are
-- (V15, which says why; a version after the messages table's own).
DROP INDEX messages_tenant;
CREATE INDEX messages_tenant ON messages (hashtextextended((project_id || mode) COLLATE "C", 0), id);
