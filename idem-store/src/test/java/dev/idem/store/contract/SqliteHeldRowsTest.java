package dev.idem.store.contract;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteHeldRowsTest extends HeldRowsContract {
    @TempDir
    static Path dir;

    @Override
    protected TestDatabase createDatabase() {
        return TestStores.sqliteDatabase(dir);
    }
}
