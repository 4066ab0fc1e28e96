-- Issue 10: claims interleave destinations (scheme, host, port) and enforce flow_control across nodes.
-- The columns repeat what the definition holds, kept in sync by every schedule write (JdbcSchedules); a row written
-- without them (destination NULL) is filled in by the engine's maintenance (DeliveryQueue.fillDestinations), and
-- until then the claim treats its schedule as a destination of its own.
ALTER TABLE schedules ADD COLUMN destination TEXT;
ALTER TABLE schedules ADD COLUMN flow_key TEXT;
ALTER TABLE schedules ADD COLUMN flow_parallelism INTEGER;
ALTER TABLE schedules ADD COLUMN flow_rate INTEGER;
CREATE INDEX schedules_flow ON schedules (flow_key) WHERE flow_key IS NOT NULL;
CREATE INDEX schedules_without_destination ON schedules (id) WHERE destination IS NULL;
-- Attempts started per flow key in the current second of the database clock (flow_control.rate), written by the
-- claim that starts them, under the flow-control lock.
CREATE TABLE flow_usage (
    flow_key      TEXT PRIMARY KEY,
    window_second BIGINT NOT NULL,
    used          INTEGER NOT NULL
);
