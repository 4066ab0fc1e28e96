package dev.idem.store.internal;

import static dev.idem.store.testing.RawSql.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * On PostgreSQL the tenant list indexes are keyed on a hash of project and mode: the list of a tenant with a small
 * share of the rows, with the dialect's tenant condition as the repositories write it, still reads its rows through
 * that index, with the generic plan a prepared statement ends up with as well as a custom one; a status list of
 * schedules still goes through the status index; and the condition keeps other tenants' rows out.
 */
class TenantListPlanTest {
    private static final int ROWS = 10_000;
    /** The index condition on the hash: the planner matched the index's expression, not just its name. */
    private static final String HASHED = "Index Cond: (hashtextextended((project_id || mode)";

    private static final Dialect DIALECT = new PostgresDialect();

    private static TestDatabase db;

    @BeforeAll
    static void fill() throws Exception {
        db = TestStores.postgresDatabase();
        try (Connection c = db.connect()) {
            fill(c);
        }
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    @Test
    void aSmallTenantsListReadsItsHashedIndexWithGenericAndCustomPlans() throws Exception {
        try (Connection c = db.connect()) {
            for (String mode : List.of("auto", "force_generic_plan", "force_custom_plan")) {
                exec(c, "SET plan_cache_mode = " + mode);
                assertThat(plan(c, "deliveries", ""))
                        .containsPattern("(using|on) deliveries_tenant ")
                        .contains(HASHED);
                assertThat(plan(c, "messages", ""))
                        .containsPattern("(using|on) messages_tenant ")
                        .contains(HASHED);
                assertThat(plan(c, "schedules", " AND origin IS NULL"))
                        .containsPattern("(using|on) schedules_tenant ")
                        .contains(HASHED);
                assertThat(plan(c, "schedules", " AND origin IS NULL AND status <> 'completed' AND status = 'paused'"))
                        .containsPattern("(using|on) schedules_tenant_status ");
            }
        }
    }

    @Test
    void theHashedConditionKeepsOnlyTheTenantsOwnRows() throws Exception {
        try (Connection c = db.connect()) {
            for (String table : List.of("deliveries", "messages")) {
                List<String> tenants = new ArrayList<>();
                StringBuilder q =
                        new StringBuilder("SELECT DISTINCT project_id || '/' || mode FROM " + table + " WHERE ");
                List<Object> args = new ArrayList<>();
                DIALECT.listedTenant(q, args, "prj_b", "test");
                try (PreparedStatement s = c.prepareStatement(q.toString())) {
                    for (int i = 0; i < args.size(); i++) s.setObject(i + 1, args.get(i));
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) tenants.add(rs.getString(1));
                    }
                }
                assertThat(tenants).as(table).containsExactly("prj_b/test");
            }
        }
    }

    /**
     * The plan of a list of tenant prj_b/test from {@code table} (narrowed by {@code more}), as the repositories build
     * it (the dialect's condition, then Pages.fetch's order and limit).
     */
    private static String plan(Connection c, String table, String more) throws Exception {
        StringBuilder q = new StringBuilder("EXPLAIN SELECT id FROM " + table + " WHERE ");
        List<Object> args = new ArrayList<>();
        DIALECT.listedTenant(q, args, "prj_b", "test");
        q.append(more).append(" ORDER BY id DESC LIMIT ?");
        args.add(51);
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement s = c.prepareStatement(q.toString())) {
            for (int i = 0; i < args.size(); i++) s.setObject(i + 1, args.get(i));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    /**
     * {@link #ROWS} rows in each table, one in a hundred of tenant prj_b/test (the one listed), the others spread over
     * prj_a/live, prj_a/test and prj_b/live: a small tenant beside big ones, whose list only an index of its own reads
     * cheaply.
     */
    private static void fill(Connection c) throws Exception {
        String n = "generate_series(1, " + ROWS + ") i";
        String project = "CASE WHEN i % 100 = 0 OR i % 3 = 0 THEN 'prj_b' ELSE 'prj_a' END";
        String mode = "CASE WHEN i % 100 = 0 OR i % 3 = 1 THEN 'test' ELSE 'live' END";
        exec(
                c,
                "INSERT INTO schedules (id, project_id, mode, status, definition, auto_pause_after, created_at, updated_at) "
                        + "SELECT 'sch_' || (100000 + i), " + project + ", " + mode + ", "
                        + "CASE WHEN i % 700 = 0 THEN 'paused' ELSE 'completed' END, '{}', 0, 0, 0 FROM " + n);
        exec(
                c,
                "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, "
                        + "attempt_count, idempotency_key, created_at, updated_at) SELECT 'dlv_' || (100000 + i), "
                        + project + ", " + mode + ", 'sch_' || (100000 + i), i, 1, 'succeeded', 1, 'k', 0, 0 FROM "
                        + n);
        exec(
                c,
                "INSERT INTO messages (id, project_id, mode, event_type, payload, deliveries, created_at) "
                        + "SELECT 'msg_' || (100000 + i), " + project + ", " + mode + ", 'e', '{}', 1, 0 FROM " + n);
        exec(c, "ANALYZE");
    }
}
