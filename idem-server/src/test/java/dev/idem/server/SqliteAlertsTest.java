package dev.idem.server;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;

class SqliteAlertsTest extends AlertsContract {
    @Override
    Store openStore(Path dir, Clock clock) {
        return TestStores.sqlite(dir, clock);
    }
}
