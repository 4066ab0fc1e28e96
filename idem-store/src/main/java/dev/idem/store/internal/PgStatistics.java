package dev.idem.store.internal;

import java.util.List;

/**
 * Keeps PostgreSQL's planner statistics of the queue's tables fresh: analyzes {@code deliveries} and {@code schedules}
 * when many of their rows changed since they were last analyzed, as autovacuum's analyze would, without waiting for it.
 *
 * <p>Why: the queue's statements are planned from statistics, and a queue's composition swings. Taken while few rows
 * were due or {@code delivering}, they make the planner believe a burst's rows are one row: it then picks nested loops
 * over the partial indexes that rescan hundreds of rows for every row of the other side. Measured on 2026-11-26 on this
 * project's 2-core machine, whose PostgreSQL runs with {@code autovacuum = off} (auto_explain of a 30,000 burst: a claim
 * of 500 removed 374,750 rows in a join filter and took 0.15–1.1 s): analyzing every 2 s during the burst cut
 * PostgreSQL's CPU per delivery from 501 to 292 µs and raised the drain from 1,609 to 2,094 deliveries/s. Autovacuum,
 * where it runs, wakes once a minute by default: too late for a burst.
 *
 * <p>Both tables, as autovacuum would analyze them where it runs. Until the claim read schedules by key, fresh
 * statistics of {@code schedules} made its second window hash-join a sequential scan of every schedule (12,000 rows
 * read per claim) and a steady 1,000/s went from a 0.6 ms to a 100 ms median lag, so this analyzed {@code deliveries}
 * only. The claim now reads the schedules of the rows it picked by key, one lookup per row, and locks the picked rows
 * through their key ({@link Dialect#oneRowByKey}), whatever the statistics (PostgresClaimPlanTest); with both tables
 * analyzed, the steady lag's median stayed at 0.3–1.2 ms in five runs where the old claim's was 48–468 ms in three
 * (idem-engine/README.md, "Plans that stay linear").
 *
 * <p>Stateless: it reads the tables' counters from {@code pg_stat_user_tables} (one cheap query) and only analyzes a
 * table with at least {@link #MIN_CHANGES} changes and a tenth of its rows changed since its last analyze, and not
 * analyzed in the last {@link #MIN_GAP_SECONDS} seconds; one node at a time (a transaction-scoped advisory lock, not
 * waited for). ANALYZE reads a sample of 30,000 rows, so its cost does not grow with the table.
 */
final class PgStatistics {
    static final long MIN_CHANGES = 1_000;
    static final int MIN_GAP_SECONDS = 2;
    /** An advisory lock key of its own ("idem" + "stat" in ASCII). */
    private static final long LOCK = 0x6964656d_73746174L;

    private PgStatistics() {}

    /** Analyzes the queue's stale tables inside {@code sql}'s transaction. */
    static void refreshIfStale(Sql sql) {
        List<String> stale = sql.query(
                "SELECT relname FROM pg_stat_user_tables WHERE relid IN ('deliveries'::regclass, 'schedules'::regclass) "
                        + "AND n_mod_since_analyze >= ? AND n_mod_since_analyze >= n_live_tup / 10 "
                        + "AND COALESCE(GREATEST(last_analyze, last_autoanalyze), 'epoch') < now() - make_interval(secs => ?)",
                rs -> rs.getString(1),
                MIN_CHANGES,
                MIN_GAP_SECONDS);
        if (stale.isEmpty()) return;
        if (!sql.one("SELECT pg_try_advisory_xact_lock(?)", rs -> rs.getBoolean(1), LOCK)
                .orElse(false)) return;
        // ANALYZE waits for a running VACUUM of the table (autovacuum's can take minutes): give up quickly instead
        sql.update("SET LOCAL lock_timeout = '200ms'");
        for (String table : stale) sql.update("ANALYZE " + ("schedules".equals(table) ? "schedules" : "deliveries"));
    }
}
