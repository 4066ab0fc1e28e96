package dev.idem.engine;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link DeliveryBehaviourTest} on PostgreSQL: one database for the class, wiped before each test. */
class PostgresDeliveryTest extends DeliveryBehaviourTest {
    private static TestDatabase db;

    @BeforeAll
    static void createDatabase() {
        db = TestStores.postgresDatabase();
    }

    @AfterAll
    static void dropDatabase() {
        db.close();
    }

    @Override
    Store open(Path dir, Clock clock) {
        Store store = db.open(clock);
        db.wipe();
        return store;
    }
}
