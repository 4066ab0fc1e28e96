package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's planner statistics of the queue's tables ({@code deliveries} and {@code schedules}) are refreshed by the reaper's beat (PgStatistics), in a database of its
 * own so that no other test's rows count. (Where autovacuum runs, it could analyze the table first within its minute's
 * nap; this project's machines run PostgreSQL with autovacuum off.)
 */
class PostgresStatisticsTest extends StoreTestBase {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }

    @Test
    void theReaperAnalyzesTheDeliveriesTableOnceManyOfItsRowsChangedAndNotBefore() throws Exception {
        assertThat(lastAnalyzed("deliveries")).as("a fresh table").isNull();
        dueDeliveries(50);
        waitForChangeCount("deliveries", 50);
        store.queue().reapExpired();
        assertThat(lastAnalyzed("deliveries"))
                .as("50 changed rows are below the threshold")
                .isNull();

        dueDeliveries(2_000);
        waitForChangeCount("deliveries", 2_050);
        store.queue().reapExpired();
        Instant first = lastAnalyzed("deliveries");
        assertThat(first).as("2,050 changed rows: analyzed by the reaper").isNotNull();
        assertThat(changeCount("deliveries")).isZero();

        store.queue().reapExpired();
        assertThat(lastAnalyzed("deliveries"))
                .as("nothing changed since: not analyzed again")
                .isEqualTo(first);
    }

    @Test
    void theReaperAnalyzesTheSchedulesTableOnceManyOfItsRowsChanged() throws Exception {
        assertThat(lastAnalyzed("schedules")).as("a fresh table").isNull();
        store.useTransaction(tx -> {
            for (int i = 0; i < 1_100; i++) tx.schedules().insert(newSchedule(tenant, clock.instant()));
        });
        waitForChangeCount("schedules", 1_100);
        store.queue().reapExpired();
        assertThat(lastAnalyzed("schedules"))
                .as("1,100 changed rows: analyzed by the reaper")
                .isNotNull();
        assertThat(changeCount("schedules")).isZero();
    }

    /**
     * The statistics system publishes a backend's counters at its next transaction, or after 10 s idle (PostgreSQL 15's
     * PGSTAT_IDLE_INTERVAL): the store's pooled connections go idle after the inserts, so this waits up to ~10 s.
     */
    private void waitForChangeCount(String table, long atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        while (changeCount(table) < atLeast) {
            assertThat(System.nanoTime())
                    .as("pg_stat_user_tables never counted %d changes of %s", atLeast, table)
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private long changeCount(String table) throws Exception {
        return stat(table, "n_mod_since_analyze", rs -> rs.getLong(1));
    }

    private Instant lastAnalyzed(String table) throws Exception {
        return stat(
                table,
                "last_analyze",
                rs -> rs.getTimestamp(1) == null ? null : rs.getTimestamp(1).toInstant());
    }

    private interface Column<T> {
        T read(ResultSet rs) throws java.sql.SQLException;
    }

    private <T> T stat(String table, String column, Column<T> read) throws Exception {
        var config = database.config();
        Properties p = new Properties();
        if (config.user() != null) p.setProperty("user", config.user());
        if (config.password() != null) p.setProperty("password", config.password());
        try (var c = DriverManager.getConnection(config.jdbcUrl(), p);
                var st = c.prepareStatement("SELECT " + column + " FROM pg_stat_user_tables WHERE relname = ?")) {
            st.setString(1, table);
            try (ResultSet rs = st.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return read.read(rs);
            }
        }
    }
}
