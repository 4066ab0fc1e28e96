package dev.idem.engine.recurring;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;

class PostgresRecurringMaterialisationTest extends RecurringMaterialisationContract {
    @Override
    Store open(MutableClock clock) {
        return TestStores.postgres(clock);
    }
}
