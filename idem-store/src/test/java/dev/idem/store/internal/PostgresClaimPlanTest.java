package dev.idem.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.store.JdbcStores;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The claim's plan on PostgreSQL reads rows in proportion to the claim's limit, whatever the planner's statistics: the
 * schedules of the rows a window picked by primary key, one lookup per row, never a scan of every schedule or of the
 * queue. Fresh statistics of {@code schedules} once made the second window hash-join a sequential scan of all of them
 * (12,000 rows per claim); statistics taken before a burst made the last step rescan the due rows once per picked row
 * (500 × 750 rows per claim). Each test builds the shape in a database of its own, takes the statistics at the moment
 * its case names, and runs the real claim statement under {@code EXPLAIN ANALYZE} (rolled back) with its real
 * parameters, with the plan PostgreSQL would pick for one execution and with the generic plan a prepared statement
 * may switch to after five.
 */
class PostgresClaimPlanTest {
    private static final int SCHEDULES = 20_000;
    private static final int DESTINATIONS = 40;
    private static final int DUE = 600;
    private static final int DELIVERING = 200;
    /** A burst many times a claim's limit, all due at once. */
    private static final int BURST = 10_000;

    private static final int LIMIT = 500;
    private static final long NOW = Instant.parse("2026-11-26T12:00:00Z").toEpochMilli();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void withFreshStatisticsOfBothTablesEachClaimLooksUpTheSchedulesOfTheRowsItPickedByKey() throws Exception {
        try (Shape shape = new Shape()) {
            shape.fill(0, SCHEDULES, true);
            shape.analyze();
            shape.assertEveryClaimPlanIsBounded("fresh statistics");
        }
    }

    @Test
    void withStatisticsTakenWhileTheTablesWereNearlyEmptyEachClaimStaysBounded() throws Exception {
        try (Shape shape = new Shape()) {
            shape.fill(0, 20, false);
            shape.analyze();
            shape.fill(20, SCHEDULES, true);
            shape.assertEveryClaimPlanIsBounded("statistics of nearly empty tables");
        }
    }

    @Test
    void withStatisticsTakenBeforeABurstFellDueEachClaimStaysBounded() throws Exception {
        try (Shape shape = new Shape()) {
            shape.fill(0, SCHEDULES, false);
            shape.analyze();
            shape.fallDue(0, SCHEDULES);
            shape.assertEveryClaimPlanIsBounded("statistics from before the burst");
        }
    }

    @Test
    void withStatisticsTakenWhenNothingWasPendingEachClaimStaysBounded() throws Exception {
        // the benchmark's shape between two phases: every row finished, then analyzed (VACUUM ANALYZE, or autovacuum),
        // so the planner believes the partial index of pending rows is empty; with the outer status condition pushed
        // into the last step's lookup it walked that index for every picked row (3,734 rows filtered per row, 0.5 s
        // per claim) instead of looking the key up
        try (Shape shape = new Shape()) {
            shape.fill(0, SCHEDULES, false);
            shape.exec("UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id LIKE 'dlv_next_%'");
            shape.analyze();
            shape.exec("UPDATE deliveries SET status = 'scheduled', next_attempt_at = " + NOW
                    + " + 3600000 + CAST(substr(id, 10) AS BIGINT) WHERE id LIKE 'dlv_next_%'");
            shape.fallDue(0, SCHEDULES);
            shape.assertEveryClaimPlanIsBounded("statistics from when nothing was pending");
        }
    }

    @Test
    void withStatisticsTakenWhenFewerThanALimitWereDueABurstsClaimsReadInProportionToTheLimitNotToTheBurst()
            throws Exception {
        // Statistics taken while a few hundred rows were due (between bursts, or as one began) make the planner expect
        // fewer due rows than a claim's limit, so a plan that keeps the due index's order gains nothing by stopping
        // early. With the full destinations checked by NOT EXISTS it then planned a hash anti-join, which loses that
        // order: each claim read every due row and looked up its schedule, then sorted them for its LIMIT (10,000 rows
        // and 40,000 buffers for a claim of 500, a burst's drain quadratic in its size). The other cases cannot see
        // this: their due rows are about one limit, so reading all of them stays under their bound.
        try (Shape shape = new Shape()) {
            // analyzed with 900 rows due and no other pending row: the planner expects a third of them at an instant
            shape.schedulesWithHistory(0, SCHEDULES);
            shape.fallDue(0, SCHEDULES / 2, 900, 0);
            shape.analyze();
            shape.fallDue(SCHEDULES / 2, SCHEDULES, BURST - DELIVERING, DELIVERING);
            // the unflow-controlled claim only: the flow-controlled one looks for its rows among all due rows by
            // design (one in ten here), so what it reads grows with the share of other rows ahead of them
            shape.assertEveryClaimPlanIsBounded(
                    "statistics taken with 900 due, then a burst of " + BURST, 10L * LIMIT, new boolean[] {false});
        }
    }

    @Test
    void aClaimBesideAFullDestinationsBacklogReadsInProportionToItsLimitNotToTheBacklog() throws Exception {
        // A destination with no free slot (it hangs, say) and a burst of its rows due: the first window looked for rows
        // of other destinations past all of them, looking up each one's schedule (1.2 s a claim at 280,000 due), so
        // every claim took that long and every other destination's rows waited that much longer.
        try (Shape shape = new Shape()) {
            // the full destination's rows due first, the other's 50 among the latest
            shape.oneShots(
                    BURST,
                    "CASE WHEN i < 50 THEN 'https://d7.test:443' ELSE 'https://d2.test:443' END",
                    NOW + " - 1000000 + CASE WHEN i < 50 THEN 999000 + i ELSE i END");
            shape.analyze();
            // d2 (the backlog's) has no free slot
            shape.assertEveryClaimPlanIsBounded(
                    "a full destination's backlog of " + BURST, 10L * LIMIT, new boolean[] {false});
        }
    }

    @Test
    void theNextDueRowBehindAFullDestinationsBacklogIsFoundReadingTwoWindowsNotTheBacklog() throws Exception {
        // After every claim that did not come back full, the claim loop asks for the earliest row a claim could take.
        // Its destination had just been given all its free slots, so the row had to be looked for past that
        // destination's whole backlog, with a lookup of each row's schedule: 1.1 s per question at 280,000 due.
        try (Shape shape = new Shape()) {
            // the full destination's rows due, the other's one row 2 s ahead
            shape.oneShots(
                    BURST,
                    "CASE WHEN i = 0 THEN 'https://other.test:443' ELSE 'https://full.test:443' END",
                    "CASE WHEN i = 0 THEN " + NOW + " + 2000 ELSE " + NOW + " - i END");
            shape.analyze();
            JdbcDeliveryQueue queue = (JdbcDeliveryQueue) shape.store.queue();
            var full = new dev.idem.core.store.DeliveryQueue.Fairness(Map.of("https://full.test:443", 0), 64);
            JdbcDeliveryQueue.NextDueStatement next = queue.nextDueStatement(NOW, full);
            for (boolean generic : new boolean[] {false, true}) {
                String what = "the next due row behind " + BURST + " rows of a full destination"
                        + (generic ? ", generic plan" : ", custom plan");
                JsonNode explained = shape.explain(next.sql(), next.args(), generic);
                JsonNode plan = explained.get("Plan");
                long read = rowsReadBy(plan);
                System.out.printf(
                        "next-due plan | %s | %d rows read | %.1f ms%n",
                        what, read, explained.path("Execution Time").asDouble());
                assertThat(plan.path("Actual Rows").asLong())
                        .as("%s: a row found", what)
                        .isEqualTo(1);
                assertThat(read)
                        .as("%s: rows read, for two windows of %d: %s", what, JdbcDeliveryQueue.NEXT_DUE_SCAN, plan)
                        .isLessThan(8L * JdbcDeliveryQueue.NEXT_DUE_SCAN);
            }
            assertThat(queue.nextDueAt(full)).contains(Instant.ofEpochMilli(NOW + 2000));
        }
    }

    @Test
    void aPausedBacklogAtTheHeadOfTheQueueIsReadByNoClaimNextDueQuestionOrStatsRead() throws Exception {
        // A paused schedule's due rows, or a disabled endpoint's, are due before every claimable row. In the due index
        // each claim, each next-due question and each tenant's stats would walk past all of them, looking up each
        // one's schedule; the pause marks them held, which keeps them out of it.
        int claimable = 50;
        try (Shape shape = new Shape()) {
            shape.oneShots(BURST, "'https://d5.test:443'", NOW + " - 1000000 + i");
            // the earliest rows' schedules paused, as the API's pause and an endpoint's disabling pause them
            shape.exec("UPDATE schedules SET status = 'paused', paused_reason = 'endpoint_disabled' WHERE id < 'sch_"
                    + String.format("%06d", BURST - claimable) + "'");
            shape.analyze();
            assertThat(shape.count("SELECT COUNT(*) FROM deliveries WHERE held"))
                    .as("rows marked held by the pause")
                    .isEqualTo(BURST - claimable);
            shape.assertEveryClaimPlanIsBounded(
                    "a paused backlog of " + BURST + " at the head", BURST / 5, new boolean[] {false});

            JdbcDeliveryQueue queue = (JdbcDeliveryQueue) shape.store.queue();
            Instant firstClaimable = Instant.ofEpochMilli(NOW - 1_000_000 + BURST - claimable);
            JdbcDeliveryQueue.NextDueStatement next =
                    queue.nextDueStatement(NOW, dev.idem.core.store.DeliveryQueue.Fairness.NONE);
            String[] stats = {JdbcStats.OLDEST_DUE, JdbcStats.QUEUED};
            Object[][] statsArgs = {{NOW, "prj_1", "live"}, {NOW, "prj_1", "live", 10_001}};
            for (boolean generic : new boolean[] {false, true}) {
                String how = generic ? ", generic plan" : ", custom plan";
                JsonNode nextPlan =
                        shape.explain(next.sql(), next.args(), generic).get("Plan");
                assertThat(rowsReadBy(nextPlan))
                        .as("the next due row behind a paused backlog%s: %s", how, nextPlan)
                        .isLessThan(4L * claimable);
                for (int i = 0; i < stats.length; i++) {
                    JsonNode plan =
                            shape.explain(stats[i], statsArgs[i], generic).get("Plan");
                    assertThat(rowsReadBy(plan))
                            .as("stats statement %s behind a paused backlog%s: %s", stats[i], how, plan)
                            .isLessThan(4L * claimable);
                }
            }
            assertThat(queue.nextDueAt()).contains(firstClaimable);
        }
    }

    /** A store in a database of its own, and a connection to it beside the store's pool. */
    private static final class Shape implements AutoCloseable {
        final TestDatabase db = TestStores.postgresDatabase();
        final JdbcStore store =
                (JdbcStore) JdbcStores.open(db.config(), Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
        final Connection c;

        Shape() throws Exception {
            Properties p = new Properties();
            if (db.config().user() != null) p.setProperty("user", db.config().user());
            if (db.config().password() != null)
                p.setProperty("password", db.config().password());
            // PREPARE of a statement with $n parameters: the driver's extended protocol would ask their types itself
            p.setProperty("preferQueryMode", "simple");
            c = DriverManager.getConnection(db.config().jdbcUrl(), p);
        }

        /**
         * Schedules {@code [from, to)} across {@link #DESTINATIONS} destinations, one in ten flow-controlled (five keys),
         * each with a succeeded delivery and one due in an hour; with {@code due}, {@link #DUE} of them also have a row
         * due now and {@link #DELIVERING} a row being delivered.
         */
        void fill(int from, int to, boolean due) throws Exception {
            schedulesWithHistory(from, to);
            delivery(from, to, "next", "'scheduled'", NOW + " + 3600000 + i");
            if (due) fallDue(from, to);
        }

        /** Schedules {@code [from, to)} as {@link #fill} writes them, each with a succeeded delivery and nothing else. */
        void schedulesWithHistory(int from, int to) throws Exception {
            exec(
                    "INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, auto_pause_after, created_at, "
                            + "updated_at, destination, flow_key, flow_parallelism, flow_rate) SELECT 'sch_' || lpad(i::text, 6, '0'), "
                            + "'prj_1', 'live', 'active', '{}', NULL, 0, 0, 0, 'https://d' || (abs(hashtext(i::text)) % "
                            + DESTINATIONS
                            + ") || '.test:443', "
                            + "CASE WHEN i % 10 = 0 THEN 'key' || (i / 50 % 5) END, CASE WHEN i % 10 = 0 THEN 50 END, "
                            + "CASE WHEN i % 10 = 0 THEN 1000 END FROM generate_series(" + from + ", " + (to - 1)
                            + ") i");
            delivery(from, to, "past", "'succeeded'", "NULL");
        }

        /**
         * One-shots {@code [0, n]}, each with one scheduled row: {@code destination} and {@code due} are SQL of
         * {@code i}.
         */
        void oneShots(int n, String destination, String due) throws Exception {
            exec("INSERT INTO schedules (id, project_id, mode, status, definition, next_fire_at, auto_pause_after, "
                    + "created_at, updated_at, destination) SELECT 'sch_' || lpad(i::text, 6, '0'), 'prj_1', 'live', "
                    + "'active', '{}', NULL, 0, 0, 0, " + destination + " FROM generate_series(0, " + n + ") i");
            exec("INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, "
                    + "attempt_count, next_attempt_at, idempotency_key, created_at, updated_at) SELECT 'dlv_' || "
                    + "lpad(i::text, 6, '0'), 'prj_1', 'live', 'sch_' || lpad(i::text, 6, '0'), 1, 1, 'scheduled', 0, "
                    + due + ", 'k', 0, 0 FROM generate_series(0, " + n + ") i");
        }

        /** {@link #DUE} of schedules {@code [from, to)} get a row due now, {@link #DELIVERING} a row being delivered. */
        void fallDue(int from, int to) throws Exception {
            fallDue(from, to, DUE, DELIVERING);
        }

        /** {@code due} of schedules {@code [from, to)} get a row due now, {@code delivering} a row being delivered. */
        void fallDue(int from, int to, int due, int delivering) throws Exception {
            int step = (to - from) / (due + delivering);
            exec(
                    "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, "
                            + "next_attempt_at, idempotency_key, lease_owner, lease_expires_at, created_at, updated_at) "
                            + "SELECT 'dlv_due_' || lpad(i::text, 6, '0'), 'prj_1', 'live', 'sch_' || lpad(i::text, 6, '0'), 2, 2, "
                            + "CASE WHEN n < " + due + " THEN 'scheduled' ELSE 'delivering' END, 0, CASE WHEN n < "
                            + due
                            + " THEN " + NOW + " - n END, 'k', CASE WHEN n >= " + due + " THEN 'node#1' END, "
                            + (NOW + 60_000)
                            + ", 0, 0 FROM (SELECT i, (i - " + from + ") / " + step + " AS n FROM generate_series("
                            + from + ", "
                            + (to - 1) + ", " + step + ") i) r WHERE n < " + (due + delivering));
        }

        private void delivery(int from, int to, String name, String status, String nextAttemptAt) throws Exception {
            int sequence = name.equals("past") ? 0 : 1;
            exec(
                    "INSERT INTO deliveries (id, project_id, mode, schedule_id, scheduled_for, sequence, status, attempt_count, "
                            + "next_attempt_at, idempotency_key, created_at, updated_at) SELECT 'dlv_" + name
                            + "_' || lpad(i::text, 6, '0'), "
                            + "'prj_1', 'live', 'sch_' || lpad(i::text, 6, '0'), " + sequence + ", " + sequence + ", "
                            + status
                            + ", 0, " + nextAttemptAt + ", 'k', 0, 0 FROM generate_series(" + from + ", " + (to - 1)
                            + ") i");
        }

        long count(String sql) throws Exception {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }

        void analyze() throws Exception {
            exec("ANALYZE schedules");
            exec("ANALYZE deliveries");
        }

        void exec(String sql) throws Exception {
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }

        void assertEveryClaimPlanIsBounded(String statistics) throws Exception {
            assertEveryClaimPlanIsBounded(statistics, 6L * (LIMIT + DUE + DELIVERING), new boolean[] {false, true});
        }

        /**
         * Each claim of {@code kinds} (flow-controlled or not), with its custom and its generic plan, reads schedules and
         * deliveries by index only, schedules by key, and fewer than {@code bound} rows in all.
         */
        void assertEveryClaimPlanIsBounded(String statistics, long bound, boolean[] kinds) throws Exception {
            JdbcDeliveryQueue queue = (JdbcDeliveryQueue) store.queue();
            Map<String, Integer> free = Map.of("https://d1.test:443", 3, "https://d2.test:443", 0);
            for (boolean flowControlled : kinds) {
                JdbcDeliveryQueue.ClaimStatement claim = queue.claimStatement(
                        flowControlled, NOW, "node#2", Duration.ofSeconds(90), free, Duration.ofMillis(20), LIMIT, 64);
                for (boolean generic : new boolean[] {false, true}) {
                    String what = statistics
                            + (flowControlled ? ", flow-controlled claim" : ", claim")
                            + (generic ? ", generic plan" : ", custom plan");
                    JsonNode explained = explain(claim, generic);
                    JsonNode plan = explained.get("Plan");
                    List<JsonNode> scans = new ArrayList<>();
                    scans(plan, scans);
                    long claimed = plan.path("Actual Rows").asLong();
                    assertThat(claimed).as("%s: rows claimed", what).isPositive();
                    long read = rowsReadBy(plan);
                    // the figures quoted in idem-engine/README.md ("Plans that stay linear")
                    System.out.printf(
                            "claim plan | %s | %d claimed | %d rows read | %.1f ms | %s%n",
                            what,
                            claimed,
                            read,
                            explained.path("Execution Time").asDouble(),
                            scans.stream()
                                    .map(n -> n.path("Node Type").asText() + " "
                                            + n.path("Index Name")
                                                    .asText(n.path("Relation Name")
                                                            .asText()) + " "
                                            + rowsRead(n)
                                                    / Math.max(
                                                            1,
                                                            n.path("Actual Loops")
                                                                    .asLong()) + "x"
                                            + n.path("Actual Loops").asLong())
                                    .collect(java.util.stream.Collectors.joining(", ")));
                    for (JsonNode scan : scans) {
                        String table = scan.path("Relation Name").asText();
                        String type = scan.path("Node Type").asText();
                        assertThat(type)
                                .as("%s: how %s is read, in %s", what, table, plan)
                                .isNotEqualTo("Seq Scan");
                        if (table.equals("schedules"))
                            assertThat(scan.path("Index Name").asText() + " "
                                            + scan.path("Index Cond").asText())
                                    .as("%s: schedules read by key, one row per lookup: %s", what, plan)
                                    .startsWith("schedules_pkey (")
                                    .contains("id = ");
                    }
                    assertThat(read)
                            .as(
                                    "%s: rows the scans of schedules and deliveries read and the joins threw away, for %d claimed: %s",
                                    what, claimed, plan)
                            .isLessThan(bound);
                }
            }
        }

        /**
         * The plan with actual row counts, in a transaction rolled back: planned for these parameters, or the generic plan
         * a prepared statement may switch to after five executions (PostgreSQL 15 has no {@code EXPLAIN (GENERIC_PLAN)}).
         */
        JsonNode explain(JdbcDeliveryQueue.ClaimStatement claim, boolean generic) throws Exception {
            return explain(claim.sql(), claim.args(), generic);
        }

        /** As {@link #explain(JdbcDeliveryQueue.ClaimStatement, boolean)}, for any statement of the queue's. */
        JsonNode explain(String sql, Object[] args, boolean generic) throws Exception {
            StringBuilder numbered = new StringBuilder();
            int n = 0;
            for (char ch : sql.toCharArray()) numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
            assertThat(n).isEqualTo(args.length);
            c.setAutoCommit(false);
            try {
                exec("PREPARE claim AS " + numbered);
                exec("SET LOCAL plan_cache_mode = " + (generic ? "force_generic_plan" : "force_custom_plan"));
                try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim("
                        + String.join(", ", java.util.Collections.nCopies(n, "?")) + ")")) {
                    // untyped: the prepared statement's parameter types decide (text, json, bigint)
                    for (int i = 0; i < n; i++) ps.setObject(i + 1, args[i].toString(), java.sql.Types.OTHER);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        return JSON.readTree(rs.getString(1)).get(0);
                    }
                }
            } catch (java.sql.SQLException e) {
                throw new AssertionError("PREPARE claim AS " + numbered, e);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                exec("DEALLOCATE ALL");
            }
        }

        @Override
        public void close() throws Exception {
            c.close();
            store.close();
            db.close();
        }
    }

    /** Every node of {@code plan} that reads {@code schedules} or {@code deliveries} (not the update writing them). */
    /** Rows the plan's scans of deliveries and schedules read, and those its joins threw away. */
    private static long rowsReadBy(JsonNode plan) {
        List<JsonNode> scans = new ArrayList<>();
        scans(plan, scans);
        return scans.stream().mapToLong(PostgresClaimPlanTest::rowsRead).sum() + joinFilterRows(plan);
    }

    private static void scans(JsonNode plan, List<JsonNode> into) {
        String table = plan.path("Relation Name").asText();
        boolean read = !plan.path("Node Type").asText().equals("ModifyTable");
        if (read && (table.equals("schedules") || table.equals("deliveries"))) into.add(plan);
        for (JsonNode child : plan.path("Plans")) scans(child, into);
    }

    /** Rows the joins of {@code plan} paired and threw away, over all their loops. */
    private static long joinFilterRows(JsonNode plan) {
        long n = plan.path("Rows Removed by Join Filter").asLong()
                * Math.max(1, plan.path("Actual Loops").asLong());
        for (JsonNode child : plan.path("Plans")) n += joinFilterRows(child);
        return n;
    }

    /**
     * Rows a scan produced and those it read and threw away, over all its loops; a loop counts at least one (EXPLAIN
     * gives rows per loop rounded, so a thousand lookups by key finding a row half the time read "0" rows each).
     */
    private static long rowsRead(JsonNode scan) {
        long perLoop = scan.path("Actual Rows").asLong()
                + scan.path("Rows Removed by Filter").asLong()
                + scan.path("Rows Removed by Index Recheck").asLong();
        return Math.max(1, perLoop) * Math.max(1, scan.path("Actual Loops").asLong());
    }
}
