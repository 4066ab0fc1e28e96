package dev.idem.engine.recurring;

import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteRecurringMaterialisationTest extends RecurringMaterialisationContract {
    @TempDir
    Path dir;

    @Override
    Store open(MutableClock clock) {
        return TestStores.sqlite(dir, clock);
    }
}
