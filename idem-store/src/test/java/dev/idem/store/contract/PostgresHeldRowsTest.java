package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;

class PostgresHeldRowsTest extends HeldRowsContract {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }
}
