package dev.idem.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.JdbcStores;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** What every PostgreSQL session of a store is told at connect, so a frozen node cannot stall a takeover. */
class PostgresSessionSettingsTest {
    @Test
    void sessionsEndATransactionIdleForTenSecondsAndTheLivenessConnectionWaitsAtMostTwoSecondsForALock() {
        try (TestDatabase db = TestStores.postgresDatabase();
                JdbcStore store = (JdbcStore) JdbcStores.open(db.config(), Clock.systemUTC())) {
            assertThat(show(store, false, "idle_in_transaction_session_timeout"))
                    .isEqualTo("10s");
            assertThat(show(store, true, "idle_in_transaction_session_timeout")).isEqualTo("10s");
            assertThat(show(store, true, "lock_timeout")).isEqualTo("2s");
            assertThat(show(store, true, "application_name")).isEqualTo("idem-liveness");
        }
    }

    private static String show(JdbcStore store, boolean liveness, String setting) {
        Transactions.Work<String> work =
                sql -> sql.one("SHOW " + setting, rs -> rs.getString(1)).orElseThrow();
        return (liveness ? store.livenessTransactions() : store.transactions()).write(work);
    }
}
