package dev.idem.engine;

/** {@link DeliveryBehaviourTest} on PostgreSQL. */
class PostgresDeliveryTest extends DeliveryBehaviourTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.postgres(clock);
    }
}
