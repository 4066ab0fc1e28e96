package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;

class PostgresNodeRegistryTest extends NodesContract {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }
}
