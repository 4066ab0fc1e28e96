-- Fewer index bytes per delivery.
--
-- Attempts are read only through their delivery (a delivery's attempts, JdbcDeliveries.attempts; the pruner deletes them
-- by delivery), never by their own id, so one index serves: the primary key (delivery_id, id) finds a delivery's
-- attempts (a handful, sorted by number when read) and keeps an attempt recorded twice (an outcome batch written again)
-- to one row (ON CONFLICT DO NOTHING), where the key on id and the index on (delivery_id, number) were two entries per
-- attempt. The number is not unique: a lease that expired mid-attempt can leave two attempts with the same number.
ALTER TABLE attempts DROP CONSTRAINT attempts_pkey;
DROP INDEX attempts_delivery;
ALTER TABLE attempts ADD CONSTRAINT attempts_pkey PRIMARY KEY (delivery_id, id);

-- The reaper (expired leases), a node's release of its leases and the claim's count of deliveries in flight per flow key
-- find the delivering rows by this partial index's predicate alone; its key only has to be small. Every claim writes
-- an entry, which stays until vacuum: keyed on the 8-byte scheduled_for (already in deliveries_occurrence, so no
-- update loses HOT by it; equal instants share one posting list) rather than the 31-byte id.
DROP INDEX deliveries_delivering;
CREATE INDEX deliveries_delivering ON deliveries (scheduled_for) WHERE status = 'delivering';
