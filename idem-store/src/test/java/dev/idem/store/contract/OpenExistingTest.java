package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.store.Store;
import dev.idem.core.store.StoreNotFoundException;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JdbcStores#openExisting}: for administrative commands, which must not make a store nobody uses. */
class OpenExistingTest {
    @TempDir
    Path dir;

    @Test
    void aMissingSqliteFileIsRefusedAndNothingIsCreated() {
        Path dataDir = dir.resolve("idem-data");
        assertThatThrownBy(() -> JdbcStores.openExisting(StoreConfig.sqlite(dataDir), Clock.systemUTC()))
                .isInstanceOf(StoreNotFoundException.class)
                .hasMessageContaining(
                        dataDir.resolve("idem.db").toAbsolutePath().toString())
                .hasMessageContaining("does not exist");
        assertThat(dataDir).doesNotExist();
    }

    @Test
    void anExistingSqliteStoreOpens() {
        JdbcStores.open(StoreConfig.sqlite(dir), Clock.systemUTC()).close();
        try (Store store = JdbcStores.openExisting(StoreConfig.sqlite(dir), Clock.systemUTC())) {
            assertThat(store.isReachable()).isTrue();
        }
    }

    @Test
    void aPostgresDatabaseWithoutTheSchemaIsRefusedAndLeftEmpty() throws Exception {
        try (TestDatabase db = TestStores.emptyPostgresDatabase()) {
            assertThatThrownBy(() -> JdbcStores.openExisting(db.config(), Clock.systemUTC()))
                    .isInstanceOf(StoreNotFoundException.class)
                    .hasMessageContaining("has no Idem tables");
            Properties p = new Properties();
            if (db.config().user() != null) p.setProperty("user", db.config().user());
            if (db.config().password() != null)
                p.setProperty("password", db.config().password());
            try (Connection c = DriverManager.getConnection(db.config().jdbcUrl(), p);
                    ResultSet rs = c.createStatement()
                            .executeQuery(
                                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")) {
                rs.next();
                assertThat(rs.getInt(1)).isZero();
            }
            db.open(Clock.systemUTC()).close();
            try (Store store = JdbcStores.openExisting(db.config(), Clock.systemUTC())) {
                assertThat(store.isReachable()).isTrue();
            }
        }
    }

    @Test
    void anSqliteFileThatIsNotAnIdemStoreIsRefused() throws Exception {
        Files.createDirectories(dir.resolve("other"));
        Files.write(dir.resolve("other").resolve(StoreConfig.SQLITE_FILE), new byte[0]);
        assertThatThrownBy(() -> JdbcStores.openExisting(StoreConfig.sqlite(dir.resolve("other")), Clock.systemUTC()))
                .isInstanceOf(StoreNotFoundException.class);
    }
}
