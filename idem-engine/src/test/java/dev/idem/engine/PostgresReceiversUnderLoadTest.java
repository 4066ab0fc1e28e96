package dev.idem.engine;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;

/** {@link ReceiversUnderLoadTest} on PostgreSQL (a fresh database per test, dropped when the store closes). */
class PostgresReceiversUnderLoadTest extends ReceiversUnderLoadTest {
    @Override
    Store open(Path dir, Clock clock) {
        return TestStores.postgres(clock);
    }
}
