package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;

class PostgresMessageSearchTest extends MessageSearchContract {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }
}
