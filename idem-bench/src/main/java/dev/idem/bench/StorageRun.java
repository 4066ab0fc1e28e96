package dev.idem.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Properties;

/**
 * What history costs on PostgreSQL: N one-shots created and delivered (the benchmark's burst: written through the
 * store ports as {@code POST /v1/schedules} writes them, a 2-byte-ish envelope body, delivered by one engine to the
 * loopback receiver), then each table's and each index's bytes per delivery, after {@code VACUUM ANALYZE} (what
 * autovacuum leaves) and after {@code VACUUM FULL} (the live rows alone); and how long the dashboard's counters
 * ({@code GET /v1/stats}'s store read) take on the empty store and with that history.
 * {@code java [-Dkeep=true] -cp idem-bench/target/idem-bench.jar dev.idem.bench.StorageRun [deliveries]} ({@code keep}:
 * leave the database {@code idem_storage} in place to look at; {@code -Ddb=NAME}: another database's name, for two
 * runs at once); {@code … StorageRun soak [perRound] [rounds]} for {@link #soak}; {@code … StorageRun sqlite
 * [deliveries]} for the same burst on the embedded store ({@link SqliteStorage}); {@code -Dsetup="SQL;SQL"}:
 * statements run on the new, empty database before the burst (to try a schema change); {@code -Dslices=K}: the
 * deliveries in K bursts with {@code VACUUM ANALYZE} between them, as autovacuum runs during a sustained load.
 */
public final class StorageRun {
    private static final String[] TABLES = {
        "schedules", "deliveries", "attempts", "idempotency_records", "messages", "delivery_counts", "delivery_traces"
    };

    private StorageRun() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("sqlite")) {
            SqliteStorage.run(args.length > 1 ? Integer.parseInt(args[1]) : 20_000);
            return;
        }
        if (args.length > 0 && args[0].equals("soak")) {
            soak(args.length > 1 ? Integer.parseInt(args[1]) : 20_000, args.length > 2 ? Integer.parseInt(args[2]) : 8);
            return;
        }
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        BenchOptions options =
                BenchOptions.parse(new String[] {"--db", System.getProperty("db", "idem_storage"), "--only", "idem"});
        Postgres postgres = new Postgres(options);
        try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads());
                IdemContender idem = new IdemContender(options, receiver, postgres)) {
            String setup = System.getProperty("setup");
            if (setup != null)
                try (Connection c = connect(options, options.dbPrefix())) {
                    for (String st : setup.split(";")) exec(c, st);
                }
            System.out.printf(Locale.ROOT, "stats read, empty store: %s%n", statsLatency(idem, Duration.ZERO));
            int slices = Integer.getInteger("slices", 1);
            int slice = Math.min(50_000, (n + slices - 1) / slices);
            for (int done = 0; done < n; ) {
                int part = Math.min(slice, n - done);
                Phase p = idem.burst("storage", part);
                if (p.completed() != part || p.pendingAfter() != 0)
                    throw new IllegalStateException("burst delivered " + p.completed() + " of " + part);
                done += part;
                System.out.printf(Locale.ROOT, "delivered %,d (%,.0f/s)%n", done, part / p.drainSeconds());
                // what autovacuum does during sustained load: the next slice reuses the space this one freed
                if (slices > 1 && done < n) idem.between();
            }
            System.out.printf(
                    Locale.ROOT,
                    "stats read, %,d deliveries of history, all finished within its 60 s window: %s%n",
                    n,
                    statsLatency(idem, Duration.ZERO));
            System.out.printf(
                    Locale.ROOT,
                    "stats read, %,d deliveries of history, all finished before its window: %s%n",
                    n,
                    statsLatency(idem, Duration.ofMinutes(10)));
            try (Connection c = connect(options, options.dbPrefix())) {
                updates(c);
                exec(c, "VACUUM ANALYZE");
                System.out.printf(Locale.ROOT, "%nafter VACUUM ANALYZE (what autovacuum leaves):%n");
                long total = sizes(c, n);
                exec(c, "VACUUM FULL");
                exec(c, "ANALYZE");
                System.out.printf(Locale.ROOT, "%nafter VACUUM FULL (live rows only, pages packed):%n");
                long packed = sizes(c, n);
                System.out.printf(
                        Locale.ROOT,
                        "%nbytes per delivered one-shot, all tables and indexes: %,d after vacuum, %,d packed%n",
                        total / n,
                        packed / n);
            }
            System.out.printf(
                    Locale.ROOT,
                    "stats read after vacuum, %,d deliveries of history, all finished before its window: %s%n",
                    n,
                    statsLatency(idem, Duration.ofMinutes(10)));
        }
        if (!Boolean.getBoolean("keep")) postgres.drop(options.dbPrefix());
    }

    /**
     * Sustained deliveries under a retention of one round: each round delivers {@code perRound} one-shots, then prunes
     * what finished before the round began (the pruner's statements, in its order and batches, with that cutoff where
     * the engine would take now minus its retention), then vacuums as autovacuum would; the tables' size per round
     * should stop growing once the first round has aged out.
     */
    private static void soak(int perRound, int rounds) throws Exception {
        BenchOptions options =
                BenchOptions.parse(new String[] {"--db", System.getProperty("db", "idem_storage"), "--only", "idem"});
        Postgres postgres = new Postgres(options);
        try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads());
                IdemContender idem = new IdemContender(options, receiver, postgres);
                Connection c = connect(options, options.dbPrefix())) {
            System.out.printf(
                    Locale.ROOT,
                    "soak: %,d one-shots a round, retention one round (the previous round's history is pruned after each)%n",
                    perRound);
            System.out.printf(
                    Locale.ROOT,
                    "  %5s %10s %10s %10s %8s %14s%n",
                    "round",
                    "schedules",
                    "deliveries",
                    "attempts",
                    "pruned",
                    "bytes");
            for (int round = 1; round <= rounds; round++) {
                Instant cutoff = idem.store().queue().now();
                Phase p = idem.burst("soak" + round, perRound);
                if (p.completed() != perRound || p.pendingAfter() != 0)
                    throw new IllegalStateException("round " + round + " delivered " + p.completed());
                int pruned = 0;
                for (int k; (k = idem.store().queue().pruneFinished(cutoff, 500)) > 0; ) pruned += k;
                for (int k; (k = idem.store().queue().pruneSettledSchedules(cutoff, 500)) > 0; ) pruned += k;
                exec(c, "VACUUM ANALYZE");
                long bytes = 0;
                for (String table : TABLES) bytes += one(c, "SELECT pg_total_relation_size('" + table + "')");
                System.out.printf(
                        Locale.ROOT,
                        "  %5d %,10d %,10d %,10d %,8d %,14d%n",
                        round,
                        one(c, "SELECT count(*) FROM schedules"),
                        one(c, "SELECT count(*) FROM deliveries"),
                        one(c, "SELECT count(*) FROM attempts"),
                        pruned,
                        bytes);
            }
        }
        postgres.drop(options.dbPrefix());
    }

    /**
     * Prints each queue table's updates and how many of them were HOT (the new version on the old one's page, no index
     * entry written): an update that is not HOT leaves a dead version and dead index entries behind until vacuum, and
     * the space they held stays with the table.
     */
    private static void updates(Connection c) throws Exception {
        // a backend reports its counts at a commit a second after its last report, or after 10 s idle: the engine's
        // pooled connections have just gone idle
        Thread.sleep(11_000);
        System.out.printf(Locale.ROOT, "%nupdates per table (pg_stat_user_tables):%n");
        System.out.printf(Locale.ROOT, "  %-20s %12s %12s %12s%n", "table", "inserted", "updated", "HOT");
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM "
                        + "pg_stat_user_tables WHERE relname IN ('schedules', 'deliveries', 'attempts') ORDER BY 1")) {
            while (rs.next())
                System.out.printf(
                        Locale.ROOT,
                        "  %-20s %,12d %,12d %,12d%n",
                        rs.getString(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        rs.getLong(4));
        }
    }

    /** Prints each table's rows, heap and index bytes per delivery; returns the total bytes. */
    private static long sizes(Connection c, int n) throws Exception {
        long total = 0;
        System.out.printf(Locale.ROOT, "  %-40s %10s %14s %12s%n", "relation", "rows", "bytes", "per delivery");
        for (String table : TABLES) {
            long rows = one(c, "SELECT count(*) FROM " + table);
            long all = one(c, "SELECT pg_total_relation_size('" + table + "')");
            long heap = one(c, "SELECT pg_table_size('" + table + "')");
            total += all;
            System.out.printf(Locale.ROOT, "  %-40s %,10d %,14d %,12d%n", table + " (all)", rows, all, all / n);
            System.out.printf(Locale.ROOT, "  %-40s %10s %,14d %,12d%n", "  heap + toast", "", heap, heap / n);
            relations(
                    c,
                    "SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = '"
                            + table + "'::regclass ORDER BY 1",
                    n);
        }
        for (String table : new String[] {"schedules", "deliveries", "attempts"}) {
            StringBuilder cols = new StringBuilder();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT attname FROM pg_attribute WHERE attrelid = '" + table
                            + "'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
                while (rs.next()) {
                    String col = rs.getString(1);
                    cols.append(String.format(
                            Locale.ROOT,
                            " %s %d",
                            col,
                            one(c, "SELECT COALESCE(avg(pg_column_size(" + col + ")), 0)::bigint FROM " + table)));
                }
            }
            System.out.printf(Locale.ROOT, "  %s, average bytes per column:%s%n", table, cols);
        }
        long db = one(c, "SELECT pg_database_size(current_database())");
        System.out.printf(Locale.ROOT, "  %-40s %10s %,14d %,12d%n", "these tables", "", total, total / n);
        System.out.printf(Locale.ROOT, "  %-40s %10s %,14d%n", "whole database", "", db);
        return total;
    }

    /**
     * Median and max of 50 reads of one tenant's dashboard counters (after 5 unmeasured), in ms, as of {@code ahead}
     * from now: ten minutes ahead, the window of the last 60 s holds none of the run's deliveries.
     */
    private static String statsLatency(IdemContender idem, Duration ahead) {
        return StatsHistoryRun.latency(() -> {
            Instant now = Instant.now().plus(ahead);
            return idem.store()
                    .inReadTransaction(
                            tx -> tx.stats().deliveryStats(idem.tenant(), now.minus(Duration.ofSeconds(60)), now));
        });
    }

    /** Prints a row per relation that {@code sql} returns (its name, its bytes), with its bytes per delivery. */
    static void relations(Connection c, String sql, int n) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next())
                System.out.printf(
                        Locale.ROOT,
                        "  %-40s %10s %,14d %,12d%n",
                        "  " + rs.getString(1),
                        "",
                        rs.getLong(2),
                        rs.getLong(2) / n);
        }
    }

    static void exec(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static long one(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Connection connect(BenchOptions options, String database) throws Exception {
        Properties p = new Properties();
        if (options.user() != null) p.setProperty("user", options.user());
        if (options.password() != null) p.setProperty("password", options.password());
        return DriverManager.getConnection(options.jdbcBase() + database, p);
    }
}
