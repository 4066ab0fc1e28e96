package dev.idem.store.contract;

import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.testing.MutableClock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A manual measurement, not a test: the CPU that {@code DeliveryQueue.confirmHeld} costs per held row, on a fresh
 * PostgreSQL database. N one-shot schedules with one delivery each, due 500 ms after the (standing) clock, are claimed
 * ahead; then every held row is checked in calls of {@code perCall} rows (the dispatcher's groups at a steady 1,000/s
 * hold about 20), for several rounds (nothing changes, so every row is confirmed and the check only reads). Prints,
 * per round, this thread's CPU (the JDBC driver and the check's decoding run on it) and the CPU of the database's
 * backends (from /proc, so only where PostgreSQL runs on this machine), both per row.
 *
 * <p>{@code HeldCheckCost [n] [perCall] [rounds] [distinct|shared]}: {@code distinct} gives every schedule a definition
 * of its own (its endpoint differs, as one-shots made through the API differ in their payloads), {@code shared} one
 * definition text for all. The database is {@code heldcheck_bench}, made anew and dropped ({@code -Ddatabase=} another
 * name, {@code -Dadmin=} the JDBC URL of the admin database; user postgres, no password).
 */
public final class HeldCheckCost {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Tenant TENANT = new Tenant("prj_bench", Mode.LIVE);

    private HeldCheckCost() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int perCall = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        boolean distinct = args.length <= 3 || args[3].equals("distinct");
        MutableClock clock = MutableClock.at(T0);
        IdGenerator ids = new IdGenerator(clock, new SecureRandom());
        String admin = System.getProperty("admin", "jdbc:postgresql://127.0.0.1:5432/postgres");
        String name = System.getProperty("database", "heldcheck_bench");
        execute(admin, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        execute(admin, "CREATE DATABASE " + name);
        String url = admin.replaceFirst("/[^/?]*(\\?|$)", "/" + name + "$1");
        try (Store store = JdbcStores.open(
                StoreConfig.of(url, "postgres", null)
                        .withDatabaseClock(false)
                        .withPoolSize(4)
                        .withMasterKeys(dev.idem.store.MasterKeys.generate(
                                new java.security.SecureRandom(), java.time.Instant.now())),
                clock)) {
            List<Schedule> schedules = new ArrayList<>();
            List<Delivery> deliveries = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Schedule s = new Schedule(
                        ids.next("sch"),
                        TENANT,
                        ScheduleStatus.ACTIVE,
                        definition(T0.plusMillis(500), distinct ? i : 0),
                        null,
                        0,
                        null,
                        1,
                        T0,
                        T0);
                schedules.add(s);
                deliveries.add(Delivery.scheduled(ids.next("dlv"), s, T0.plusMillis(500), 1, T0));
            }
            store.useTransaction(tx -> {
                tx.schedules().insertAll(schedules);
                deliveries.forEach(tx.deliveries()::insertIfAbsent);
            });
            List<Claim> held = new ArrayList<>();
            for (List<Claim> c;
                    !(c = store.queue().claimDue("bench", Duration.ofMinutes(10), 500, Duration.ofSeconds(1)))
                            .isEmpty(); ) held.addAll(c);
            System.out.printf(
                    "%d rows held ahead (%s definitions), checked %d per call, %d rounds%n",
                    held.size(), distinct ? "distinct" : "shared", perCall, rounds);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            try (Connection mine = DriverManager.getConnection(url, "postgres", null)) {
                for (int round = 1; round <= rounds; round++) {
                    long backends0 = backendTicks(mine);
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    long wall0 = System.nanoTime();
                    int started = 0;
                    for (int i = 0; i < held.size(); i += perCall)
                        started += store.queue()
                                .confirmHeld("bench", held.subList(i, Math.min(held.size(), i + perCall)))
                                .size();
                    long cpu = threads.getCurrentThreadCpuTime() - cpu0;
                    long wall = System.nanoTime() - wall0;
                    long backends = (backendTicks(mine) - backends0) * (1_000_000_000L / CLOCK_TICKS);
                    if (started != held.size())
                        throw new IllegalStateException("only " + started + " of " + held.size() + " confirmed");
                    System.out.printf(
                            "round %d: this thread %.1f us CPU per row, database backends %.1f us CPU per row, "
                                    + "wall %.1f us per row%n",
                            round,
                            cpu / 1000.0 / held.size(),
                            backends / 1000.0 / held.size(),
                            wall / 1000.0 / held.size());
                }
            }
        } finally {
            execute(admin, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    private static void execute(String url, String statement) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", null);
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static final long CLOCK_TICKS = 100; // USER_HZ on Linux

    /** User and system CPU ticks of every backend of the database {@code admin} is connected to, itself included. */
    private static long backendTicks(Connection admin) throws Exception {
        long ticks = 0;
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")) {
            while (rs.next()) {
                Path stat = Path.of("/proc", Integer.toString(rs.getInt(1)), "stat");
                if (!Files.isReadable(stat)) continue;
                String text = Files.readString(stat);
                // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
                String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            }
        }
        return ticks;
    }

    /** A one-shot's definition, the contract tests' one; variant {@code v} differs in its endpoint. */
    private static ScheduleDefinition definition(Instant fireAt, int v) {
        return StoreTestBase.definition(fireAt)
                .withEndpoint("https://hooks.example.com/invoices/inv_" + v + "/reminder");
    }
}
