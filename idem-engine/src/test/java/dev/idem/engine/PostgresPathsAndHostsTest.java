package dev.idem.engine;

/** {@link PathsAndHostsTest} on PostgreSQL (a fresh database per test, dropped when the store closes). */
class PostgresPathsAndHostsTest extends PathsAndHostsTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.postgres(clock);
    }
}
