package dev.idem.engine.recurring;

import dev.idem.core.store.Store;
import dev.idem.store.testing.MutableClock;
import dev.idem.store.testing.TestStores;

class PostgresRecurringMaterialisationTest extends RecurringMaterialisationContract {
    @Override
    Store open(MutableClock clock) {
        return TestStores.postgres(clock);
    }
}
