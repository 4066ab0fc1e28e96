-- The pruner finds what has aged out through small indexes, oldest first, so each batch reads about what it deletes
-- however much history and live work the tables hold: schedules that are over (completed or deleted) by their last
-- change, messages by creation. A schedule enters schedules_settled when it settles (an update that moves its status,
-- which is indexed already, so no HOT update is lost) and leaves it when pruned; an active or paused one is never in it.
CREATE INDEX schedules_settled ON schedules (updated_at) WHERE status IN ('completed', 'deleted');
CREATE INDEX messages_created ON messages (created_at);
