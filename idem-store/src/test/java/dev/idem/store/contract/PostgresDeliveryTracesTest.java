package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;

class PostgresDeliveryTracesTest extends DeliveryTracesContract {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }
}
