package dev.idem.server.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.util.List;

class PostgresBulkReplayTest extends BulkReplayContract {
    @Override
    TestDatabase database(Path dir) {
        return TestStores.postgresDatabase();
    }

    @Override
    List<String> failReplayOf(String deliveryId) {
        return List.of(
                "CREATE FUNCTION idem_test_fail() RETURNS trigger AS $$ BEGIN IF NEW.id = '" + deliveryId
                        + "' AND NEW.status = 'retrying' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
                "CREATE TRIGGER idem_test_fail BEFORE UPDATE ON deliveries FOR EACH ROW EXECUTE FUNCTION idem_test_fail()");
    }

    @Override
    List<String> removeFailure() {
        return List.of("DROP TRIGGER idem_test_fail ON deliveries", "DROP FUNCTION idem_test_fail()");
    }
}
