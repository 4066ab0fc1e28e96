package dev.idem.engine;

/** {@link ReceiversUnderLoadTest} on an SQLite file. */
class SqliteReceiversUnderLoadTest extends ReceiversUnderLoadTest {
    @Override
    dev.idem.core.store.Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return dev.idem.store.testing.TestStores.sqlite(dir, clock);
    }
}
