package dev.idem.receiver.bench;

import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.RedisInbox;
import dev.idem.receiver.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.SetParams;

/**
 * Inbox decisions per second against the bare primitive they are built on, in the same run, on the same
 * connections: PostgreSQL {@code JdbcInbox.process} vs a bare autocommitted {@code INSERT … ON CONFLICT DO
 * NOTHING}, Redis {@code RedisInbox.claim} / {@code execute} vs a bare {@code SET NX PX}. 40% of keys arrive
 * twice. Rounds alternate bare and inbox so drift hits both; the best round of each is reported.
 *
 * <p>Run: {@code mvn -B -q -pl idem-receiver test-compile exec:java -Dexec.args="--keys 20000 --threads 16 --rounds 3"}
 */
public final class InboxBenchmark {
    interface Decision {
        void decide(String key) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int keys = intArg(args, "--keys", 20_000);
        int threads = intArg(args, "--threads", 16);
        int rounds = intArg(args, "--rounds", 3);
        System.out.printf(
                "inbox benchmark: %d keys per round (+40%% duplicates), %d threads, %d rounds, best round shown%n",
                keys, threads, rounds);
        postgres(keys, threads, rounds);
        redis(keys, threads, rounds);
    }

    private static void postgres(int keys, int threads, int rounds) throws Exception {
        try (TestDatabases.Pool pool = new TestDatabases.Pool(TestDatabases.postgresUrl(), threads)) {
            TestDatabases.exec(
                    pool,
                    "DROP TABLE IF EXISTS bench_bare",
                    "DROP TABLE IF EXISTS bench_inbox",
                    "CREATE TABLE bench_bare (idem_key VARCHAR(255) PRIMARY KEY)");
            JdbcInbox inbox = JdbcInbox.builder(pool).table("bench_inbox").build();
            Decision bare = key -> {
                try (Connection c = pool.getConnection();
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO bench_bare (idem_key) VALUES (?) ON CONFLICT DO NOTHING")) {
                    ps.setString(1, key);
                    ps.executeUpdate();
                }
            };
            // the least a hand-rolled "claim in the handler's transaction" costs: the same insert, then COMMIT
            Decision bareTx = key -> {
                try (Connection c = pool.getConnection();
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO bench_bare (idem_key) VALUES (?) ON CONFLICT DO NOTHING")) {
                    c.setAutoCommit(false);
                    ps.setString(1, key);
                    ps.executeUpdate();
                    c.commit();
                    c.setAutoCommit(true);
                }
            };
            Decision processed = key -> inbox.process(key, tx -> null);
            compare(
                    "PostgreSQL",
                    "INSERT ON CONFLICT DO NOTHING",
                    bare,
                    "JdbcInbox.process (claim in handler tx)",
                    processed,
                    keys,
                    threads,
                    rounds);
            compare(
                    "PostgreSQL",
                    "BEGIN; INSERT ON CONFLICT; COMMIT",
                    bareTx,
                    "JdbcInbox.process (claim in handler tx)",
                    processed,
                    keys,
                    threads,
                    rounds);
            TestDatabases.exec(pool, "DROP TABLE IF EXISTS bench_bare", "DROP TABLE IF EXISTS bench_inbox");
        }
    }

    private static void redis(int keys, int threads, int rounds) throws Exception {
        try (JedisPooled redis = TestDatabases.redis()) {
            String prefix = TestDatabases.REDIS_PREFIX + "bench:";
            RedisInbox inbox = new RedisInbox(redis, prefix + "inbox:", Duration.ofSeconds(30), DedupWindow.defaults());
            SetParams nx = SetParams.setParams().nx().px(600_000);
            Decision bare = key -> redis.set(prefix + "bare:" + key, "1", nx);
            compare(
                    "Redis",
                    "SET NX PX",
                    bare,
                    "RedisInbox.claim (decision only)",
                    key -> inbox.claim(key, Duration.ofMinutes(10)),
                    keys,
                    threads,
                    rounds);
            compare(
                    "Redis",
                    "SET NX PX",
                    bare,
                    "RedisInbox.execute (claim + mark)",
                    key -> inbox.execute(key, () -> null),
                    keys,
                    threads,
                    rounds);
            TestDatabases.clearRedis(redis, "bench:");
        }
    }

    private static void compare(
            String store,
            String bareName,
            Decision bare,
            String inboxName,
            Decision inbox,
            int keys,
            int threads,
            int rounds)
            throws Exception {
        run(bare, workload(keys / 4), threads); // warm-up, both paths
        run(inbox, workload(keys / 4), threads);
        double bestBare = 0;
        double bestInbox = 0;
        for (int r = 0; r < rounds; r++) {
            bestBare = Math.max(bestBare, run(bare, workload(keys), threads));
            bestInbox = Math.max(bestInbox, run(inbox, workload(keys), threads));
        }
        System.out.printf("%-10s %-34s %9.0f decisions/s%n", store, bareName, bestBare);
        System.out.printf(
                "%-10s %-34s %9.0f decisions/s   overhead ratio %.2fx%n",
                store, inboxName, bestInbox, bestBare / bestInbox);
    }

    /** Fresh keys, 40% of them delivered twice (the copy soon after the first). */
    private static List<String> workload(int keys) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<String> list = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            list.add("k-" + run + "-" + i);
            if (i % 5 < 2) list.add("k-" + run + "-" + i);
        }
        // shuffle in small blocks so duplicates stay near their first copy, as retries of a busy sender do
        Random random = new Random(42);
        for (int i = 0; i + 16 <= list.size(); i += 16) Collections.shuffle(list.subList(i, i + 16), random);
        return list;
    }

    private static double run(Decision d, List<String> deliveries, int threads) throws Exception {
        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                for (String k; (k = queue.poll()) != null; ) d.decide(k);
                return null;
            }));
        }
        for (Future<?> f : fs) f.get();
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        return deliveries.size() / seconds;
    }

    private static int intArg(String[] args, String name, int dflt) {
        for (int i = 0; i + 1 < args.length; i++) if (args[i].equals(name)) return Integer.parseInt(args[i + 1]);
        return dflt;
    }
}
