package dev.idem.engine;

/** {@link EndpointUnitTest} on an SQLite file. */
class SqliteEndpointUnitTest extends EndpointUnitTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.sqlite(dir, clock);
    }
}
