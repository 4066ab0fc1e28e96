package dev.idem.server.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.util.List;

class SqliteBulkReplayTest extends BulkReplayContract {
    @Override
    TestDatabase database(Path dir) {
        return TestStores.sqliteDatabase(dir);
    }

    @Override
    List<String> failReplayOf(String deliveryId) {
        return List.of("CREATE TRIGGER idem_test_fail BEFORE UPDATE ON deliveries WHEN NEW.id = '" + deliveryId
                + "' AND NEW.status = 'retrying' BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    }

    @Override
    List<String> removeFailure() {
        return List.of("DROP TRIGGER idem_test_fail");
    }
}
