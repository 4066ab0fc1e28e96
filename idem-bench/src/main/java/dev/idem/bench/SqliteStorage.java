package dev.idem.bench;

import static dev.idem.bench.StorageRun.exec;
import static dev.idem.bench.StorageRun.one;
import static dev.idem.bench.StorageRun.relations;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Locale;

/**
 * {@link StorageRun}'s burst on the embedded store: N one-shots written and delivered by one engine on a new SQLite
 * file, then the file's pages per delivery as the store leaves them (rows and indexes by {@code dbstat}, free pages
 * apart), after {@code PRAGMA incremental_vacuum} (what the pruner runs) and after {@code VACUUM} (pages packed).
 * SQLite rewrites a row in place, so an update leaves no dead version behind; what it leaves is B-tree pages split
 * while rows grew and shrank.
 */
final class SqliteStorage {
    private static final String[] TABLES = {"schedules", "deliveries", "attempts"};

    private SqliteStorage() {}

    static void run(int n) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[] {"--only", "idem"});
        Path dir = Files.createTempDirectory("idem-storage-sqlite");
        Path file = dir.resolve("idem.db");
        try {
            try (Receiver receiver = new Receiver(options.jdkReceiver(), options.receiverThreads());
                    IdemContender idem = IdemContender.sqlite(options, receiver, file)) {
                for (int done = 0; done < n; ) {
                    int part = Math.min(50_000, n - done);
                    Phase p = idem.burst("storage", part);
                    if (p.completed() != part || p.pendingAfter() != 0)
                        throw new IllegalStateException("burst delivered " + p.completed() + " of " + part);
                    done += part;
                    System.out.printf(Locale.ROOT, "SQLite: delivered %,d (%,.0f/s)%n", done, part / p.drainSeconds());
                }
            }
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
                exec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
                System.out.printf(
                        Locale.ROOT, "%nSQLite, as the store leaves the file (engine stopped, log checkpointed):%n");
                long left = sizes(c, n);
                exec(c, "PRAGMA incremental_vacuum");
                exec(c, "PRAGMA wal_checkpoint(TRUNCATE)");
                long trimmed = one(c, "PRAGMA page_count") * one(c, "PRAGMA page_size");
                System.out.printf(
                        Locale.ROOT,
                        "%nSQLite, after PRAGMA incremental_vacuum: file %,d B, %,d per delivery%n",
                        trimmed,
                        trimmed / n);
                exec(c, "VACUUM");
                System.out.printf(Locale.ROOT, "%nSQLite, after VACUUM (pages packed):%n");
                long packed = sizes(c, n);
                System.out.printf(
                        Locale.ROOT,
                        "%nSQLite bytes per delivered one-shot, the whole file: %,d as left, %,d after incremental "
                                + "vacuum, %,d packed%n",
                        left / n,
                        trimmed / n,
                        packed / n);
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Prints the queue tables' and their indexes' bytes per delivery (dbstat) and the file's; returns the file's. */
    private static long sizes(Connection c, int n) throws Exception {
        System.out.printf(Locale.ROOT, "  %-40s %10s %14s %12s%n", "relation", "rows", "bytes", "per delivery");
        for (String table : TABLES) {
            long rows = one(c, "SELECT count(*) FROM " + table);
            System.out.printf(Locale.ROOT, "  %-40s %,10d %14s %12s%n", table, rows, "", "");
            relations(
                    c,
                    "SELECT name, SUM(pgsize) FROM dbstat WHERE name = '" + table + "' OR name IN (SELECT name FROM "
                            + "sqlite_master WHERE type = 'index' AND tbl_name = '" + table + "') GROUP BY name "
                            + "ORDER BY name <> '" + table + "', name",
                    n);
        }
        long pageSize = one(c, "PRAGMA page_size");
        long pages = one(c, "PRAGMA page_count");
        long free = one(c, "PRAGMA freelist_count");
        System.out.printf(
                Locale.ROOT, "  %-40s %10s %,14d %,12d%n", "free pages", "", free * pageSize, free * pageSize / n);
        System.out.printf(
                Locale.ROOT, "  %-40s %10s %,14d %,12d%n", "whole file", "", pages * pageSize, pages * pageSize / n);
        return pages * pageSize;
    }
}
