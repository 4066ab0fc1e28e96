package dev.idem.server;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;

class PostgresAlertsTest extends AlertsContract {
    @Override
    Store openStore(Path dir, Clock clock) {
        return TestStores.postgres(clock);
    }
}
