package dev.idem.engine;

/** {@link DeliveryBehaviourTest} on an SQLite file. */
class SqliteDeliveryTest extends DeliveryBehaviourTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.sqlite(dir, clock);
    }
}
