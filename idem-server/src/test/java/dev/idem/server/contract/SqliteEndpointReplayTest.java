package dev.idem.server.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;

class SqliteEndpointReplayTest extends EndpointReplayContract {
    @Override
    TestDatabase database(Path dir) {
        return TestStores.sqliteDatabase(dir);
    }
}
