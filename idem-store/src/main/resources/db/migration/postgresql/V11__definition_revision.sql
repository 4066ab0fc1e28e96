-- A counter of each schedule's definition, moved only when a write changes the stored definition (JdbcSchedules.update
-- compares the stored text with the new one). A claim reads it beside the definition, and the check of claims held
-- ahead of their instant (HeldCheck) compares it instead of reading and decoding the whole definition again. Every
-- other column of a schedule (cursor, failure count, status, updated_at) moves without it. A definition edited by hand
-- in SQL should add one to it too, or a claim held at that moment starts with the old definition.
-- Adding a column with a constant default rewrites nothing on PostgreSQL 11 and later.
ALTER TABLE schedules ADD COLUMN definition_revision BIGINT NOT NULL DEFAULT 0;
