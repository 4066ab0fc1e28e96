package dev.idem.engine;

/** {@link PathsAndHostsTest} on an SQLite file. */
class SqlitePathsAndHostsTest extends PathsAndHostsTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.sqlite(dir, clock);
    }
}
