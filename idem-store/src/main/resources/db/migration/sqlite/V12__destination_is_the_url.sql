-- A schedule's destination key becomes its endpoint's URL without the query (dev.idem.core.Destination): scheme, host,
-- port and path, so one hanging path no longer holds up the other paths of its host. The key is computed in Java only
-- (one definition for both dialects, no URL parsing in SQL): every key is cleared here and the engine's maintenance
-- fills them in again (DeliveryQueue.fillRouting, a few thousand schedules a second). Until a schedule's key is
-- filled, the claim treats the schedule as a destination of its own, as it does for any schedule written without one,
-- and the engine still limits its deliveries by their URL when it starts them.
UPDATE schedules SET destination = NULL WHERE destination IS NOT NULL;
