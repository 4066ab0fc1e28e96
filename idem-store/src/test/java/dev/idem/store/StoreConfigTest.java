package dev.idem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StoreConfigTest {
    @Test
    void theEmbeddedStoreIsAnSqliteFileInTheDataDirectory() {
        StoreConfig c = StoreConfig.sqlite(Path.of("/var/lib/idem"));
        assertThat(c.jdbcUrl()).isEqualTo("jdbc:sqlite:/var/lib/idem/idem.db");
        assertThat(c.dialect()).isEqualTo("sqlite");
        assertThat(c.databaseClock()).isFalse();
    }

    @Test
    void theDialectComesFromTheUrlScheme() {
        StoreConfig pg = StoreConfig.of("jdbc:postgresql://db.internal/idem", "idem", "s3cret");
        assertThat(pg.dialect()).isEqualTo("postgresql");
        assertThat(pg.databaseClock()).isTrue();
        assertThat(StoreConfig.of("jdbc:sqlite:/tmp/x.db", null, null).dialect())
                .isEqualTo("sqlite");
    }

    @Test
    void anUnknownSchemeIsRefusedNamingTheAcceptedOnes() {
        assertThatThrownBy(() -> StoreConfig.of("jdbc:mysql://h/db?password=hunter2", null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:postgresql://")
                .hasMessageContaining("jdbc:sqlite:")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> StoreConfig.of("postgres://h/db", null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreConfig.of("jdbc:sqlite:", null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPoolSizeOutOfRangeIsRefused() {
        StoreConfig c = StoreConfig.of("jdbc:postgresql://h/db", null, null);
        assertThatThrownBy(() -> c.withPoolSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pool size");
        assertThat(c.withPoolSize(32).poolSize()).isEqualTo(32);
    }

    @Test
    void sqliteNeverUsesADatabaseClock() {
        assertThat(StoreConfig.sqlite(Path.of("d")).withDatabaseClock(true).databaseClock())
                .isFalse();
    }

    @Test
    void toStringHidesPasswords() {
        StoreConfig c = StoreConfig.of("jdbc:postgresql://h/db?user=u&password=hunter2", "u", "topsecret");
        assertThat(c.toString())
                .doesNotContain("hunter2")
                .doesNotContain("topsecret")
                .contains("password=***");
    }

    @Test
    void redactionHidesPasswordParametersAndUserInfoPasswordsInEveryForm() {
        assertThat(StoreConfig.redact("jdbc:postgresql://h/db?user=u&password=hunter2&ssl=true"))
                .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
        assertThat(StoreConfig.redact("jdbc:mariadb://h/db;PASSWORD=hunter2;x=1"))
                .isEqualTo("jdbc:mariadb://h/db;PASSWORD=***;x=1");
        assertThat(StoreConfig.redact("redis://default:hunter2@127.0.0.1:6379/0"))
                .isEqualTo("redis://default:***@127.0.0.1:6379/0");
        assertThat(StoreConfig.redact("jdbc:sqlite:/var/lib/idem/idem.db"))
                .isEqualTo("jdbc:sqlite:/var/lib/idem/idem.db");
    }
}
