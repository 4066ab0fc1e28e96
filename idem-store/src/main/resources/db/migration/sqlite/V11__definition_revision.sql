-- A counter of each schedule's definition: see the PostgreSQL migration of the same version.
ALTER TABLE schedules ADD COLUMN definition_revision INTEGER NOT NULL DEFAULT 0;
