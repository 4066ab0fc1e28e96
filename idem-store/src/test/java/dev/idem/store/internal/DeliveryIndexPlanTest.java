package dev.idem.store.internal;

import static dev.idem.store.testing.RawSql.count;
import static dev.idem.store.testing.RawSql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.JdbcStores;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The small indexes that keep a finished delivery cheap are still the ones the statements read, on both stores: with
 * thousands of finished deliveries and a few being delivered, the reaper finds the delivering rows through
 * {@code deliveries_delivering} (its predicate, whatever its key) and a delivery's attempts come through the attempts'
 * key {@code (delivery_id, id)} (on SQLite the clustered table's own key), not through a scan of either table. With
 * another tenant's backlog due as well, the dashboard's lag and depth on SQLite reach the tenant's own due rows through
 * {@code deliveries_tenant_due}, neither through every tenant's due rows nor through the tenant's finished ones.
 */
class DeliveryIndexPlanTest {
    private static final int FINISHED = 5_000;
    private static final int DELIVERING = 20;
    /** Due rows of another tenant, and of the tenant whose dashboard is read. */
    private static final int OTHERS_DUE = 5_000, OWN_DUE = 5;

    @TempDir
    Path dir;

    @Test
    void onPostgresTheReaperAndTheAttemptsReadUseTheirIndexes() throws Exception {
        try (TestDatabase db = TestStores.postgresDatabase()) {
            // no tenant due index here (JdbcStats says why)
            assertPlans(db, "EXPLAIN ", "ANALYZE", "deliveries_delivering", "attempts_pkey", null);
        }
    }

    @Test
    void onSqliteTheReaperAndTheAttemptsReadUseTheirIndexes() throws Exception {
        TestDatabase db = TestStores.sqliteDatabase(dir);
        // attempts are a WITHOUT ROWID table: its key is the table's own B-tree
        assertPlans(
                db,
                "EXPLAIN QUERY PLAN ",
                "ANALYZE",
                "deliveries_delivering",
                "PRIMARY KEY (delivery_id=?)",
                "deliveries_tenant_due");
    }

    @Test
    void onSqliteAPausedBacklogIsOutOfTheDueIndexesThatTheClaimNextDueAndStatsRead() throws Exception {
        TestDatabase db = TestStores.sqliteDatabase(dir);
        try (JdbcStore store = (JdbcStore) JdbcStores.open(db.config(), Clock.systemUTC());
                Connection c = db.connect()) {
            fill(c);
            // the other tenant's due rows, all earlier than the tenant's own, paused: V47's trigger marks them held
            exec(c, "UPDATE schedules SET status = 'paused' WHERE project_id = 'prj_2'");
            exec(c, "ANALYZE");
            assertThat(count(c, "SELECT COUNT(*) FROM deliveries WHERE held = 1"))
                    .isEqualTo(OTHERS_DUE);
            // ANALYZE counts each index's entries: the partial indexes hold the tenant's claimable rows only
            assertThat(count(c, "SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE idx = 'deliveries_due'"))
                    .isEqualTo(OWN_DUE);
            assertThat(count(c, "SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE idx = 'deliveries_tenant_due'"))
                    .isEqualTo(OWN_DUE);

            long now = System.currentTimeMillis();
            JdbcDeliveryQueue queue = (JdbcDeliveryQueue) store.queue();
            JdbcDeliveryQueue.ClaimStatement claim = queue.claimStatement(
                    false,
                    now,
                    "node",
                    java.time.Duration.ofSeconds(60),
                    java.util.Map.of(),
                    java.time.Duration.ZERO,
                    100,
                    64);
            assertThat(plan(c, "EXPLAIN QUERY PLAN " + claim.sql(), claim.args()))
                    .contains("deliveries_due");
            JdbcDeliveryQueue.NextDueStatement next =
                    queue.nextDueStatement(now, dev.idem.core.store.DeliveryQueue.Fairness.NONE);
            assertThat(plan(c, "EXPLAIN QUERY PLAN " + next.sql(), next.args())).contains("deliveries_due");
            assertThat(plan(c, "EXPLAIN QUERY PLAN " + JdbcStats.OLDEST_DUE, now, "prj_1", "live"))
                    .contains("deliveries_tenant_due");
            assertThat(queue.nextDueAt()).isPresent();
        }
    }

    private static void assertPlans(
            TestDatabase db, String explain, String analyze, String delivering, String attemptsKey, String tenantDue)
            throws Exception {
        try (JdbcStore store = (JdbcStore) JdbcStores.open(db.config(), Clock.systemUTC());
                Connection c = db.connect()) {
            fill(c);
            exec(c, analyze);
            String reap = ((JdbcDeliveryQueue) store.queue()).reapStatement();
            assertThat(plan(c, explain + reap, System.currentTimeMillis())).contains(delivering);
            assertThat(plan(c, explain + JdbcDeliveries.ATTEMPTS, "dlv_100007")).contains(attemptsKey);
            if (tenantDue == null) return;
            long now = System.currentTimeMillis();
            assertThat(plan(c, explain + JdbcStats.OLDEST_DUE, now, "prj_1", "live"))
                    .contains(tenantDue);
            assertThat(plan(c, explain + JdbcStats.QUEUED, now, "prj_1", "live", 10_001))
                    .contains(tenantDue);
        }
    }

    /**
     * {@link #FINISHED} succeeded deliveries with an attempt each, {@link #DELIVERING} being delivered, and due:
     * {@link #OWN_DUE} of the same tenant, {@link #OTHERS_DUE} of another one, all earlier.
     */
    private static void fill(Connection c) throws Exception {
        String numbers = "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                + (FINISHED + DELIVERING) + ") ";
        exec(
                c,
                numbers + "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, "
                        + "attempt_count, next_attempt_at, idempotency_key, lease_owner, lease_expires_at, created_at, "
                        + "updated_at) SELECT 'dlv_' || (100000 + i), 'prj_1', 'live', 'sch_' || (100000 + i), i, 1, "
                        + "CASE WHEN i > " + FINISHED + " THEN 'delivering' ELSE 'succeeded' END, 1, NULL, 'k', "
                        + "CASE WHEN i > " + FINISHED + " THEN 'node' END, CASE WHEN i > " + FINISHED
                        + " THEN 1 END, 0, 0 FROM n");
        exec(
                c,
                numbers + "INSERT INTO attempts (id, delivery_id, number, started_at, duration_ms, status_code) "
                        + "SELECT 'att_' || (100000 + i), 'dlv_' || (100000 + i), 1, 0, 5, 200 FROM n");
        String due = "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                + (OTHERS_DUE + OWN_DUE) + ") ";
        exec(
                c,
                due + "INSERT INTO schedules (id, project_id, mode, status, definition, auto_pause_after, created_at, "
                        + "updated_at) SELECT 'sch_' || (200000 + i), CASE WHEN i > " + OTHERS_DUE
                        + " THEN 'prj_1' ELSE 'prj_2' END, 'live', 'active', '{}', 0, 0, 0 FROM n");
        exec(
                c,
                due + "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, "
                        + "status, attempt_count, next_attempt_at, idempotency_key, created_at, updated_at) "
                        + "SELECT 'dlv_' || (200000 + i), CASE WHEN i > " + OTHERS_DUE + " THEN 'prj_1' ELSE 'prj_2' "
                        + "END, 'live', 'sch_' || (200000 + i), i, 1, 'scheduled', 0, i, 'k', 0, 0 FROM n");
    }

    /** The plan of {@code sql} with {@code params} in order; a single parameter fills every mark. */
    private static String plan(Connection c, String sql, Object... params) throws Exception {
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            int marks = (int) sql.chars().filter(ch -> ch == '?').count();
            for (int i = 1; i <= marks; i++) s.setObject(i, params.length == 1 ? params[0] : params[i - 1]);
            try (ResultSet rs = s.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) plan.append(rs.getString(columns)).append('\n');
            }
        }
        return plan.toString();
    }
}
