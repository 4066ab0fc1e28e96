package dev.idem.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Mode;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.engine.EngineConfig;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.Rfc3339;
import dev.idem.wire.SigningSecret;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Issue 17's benchmark: many schedules created ahead, through the API of a real node (an {@link IdemServer} on
 * HTTP, kept-alive clients), all due at one instant; and the create rate itself. Phases:
 *
 * <ol>
 *   <li><b>creates</b>, per store (PostgreSQL, SQLite): one-shots a day ahead through {@code POST /v1/schedules}
 *       from {@code --clients} threads, then through {@code POST /v1/schedules/batch} in bodies of {@code --batch},
 *       then the same rows written through the store ports alone (one create per transaction from as many threads,
 *       then {@code --batch} per transaction): the API's cost over a bare insert.</li>
 *   <li><b>once N</b>: N one-shots created through the API {@code --lead} seconds (after the estimated creation
 *       time) ahead of one instant T; db-scheduler gets N instances at its own T by {@code scheduleBatch}, in the same
 *       run. Measured: the first delivery's lag after T and the time from T to the last delivery at the receiver.</li>
 *   <li><b>cron N</b>: N cron schedules firing at one instant T ({@code "s m h * * *"}, UTC), created more than the
 *       materialiser's horizon ahead so that it is the materialiser, not the create path, that writes the rows;
 *       db-scheduler gets N recurring instances with the same persistent cron. Also counted: Idem's rows for T that
 *       existed 100 ms before T.</li>
 * </ol>
 *
 * With {@code --nodes N} the two timed phases run N nodes per contender on the one database: N Idem nodes (a server,
 * store, pool and engine each, node ids {@code massdue-1..N}; the schedules are created through the first node's API,
 * any node's engine and materialiser may take them) and N db-scheduler schedulers, as idem-bench's {@code --nodes}.
 * The creates phase always runs one node.
 *
 * <p>Prints one line per phase with the load average. Run it with
 * {@code java -XX:+UseParallelGC -cp idem-bench/target/idem-bench.jar dev.idem.bench.MassDue --help}.
 */
public final class MassDue {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk_test_massdue_bench_0123456789";

    private final Map<String, String> opt;
    private final PrintStream out;
    private final BenchOptions base;
    private final Postgres postgres;
    /** Creates per second through the API, measured in the creates phase (a first guess until then). */
    private double apiRate = 1_000;

    private MassDue(Map<String, String> opt, PrintStream out) {
        this.opt = opt;
        this.out = out;
        this.base = BenchOptions.parse(new String[] {"--db", opt.get("db"), "--nodes", opt.get("nodes")});
        this.postgres = new Postgres(base);
    }

    static final Map<String, String> DEFAULTS = Map.ofEntries(
            Map.entry("db", "idem_bench_massdue"),
            Map.entry("creates", "20000"),
            Map.entry("once", "20000,100000"),
            Map.entry("cron", "10000"),
            Map.entry("lead", "90"),
            Map.entry("clients", "16"),
            Map.entry("batch", "1000"),
            Map.entry("stores", "postgresql,sqlite"),
            Map.entry("only", "idem,db-scheduler"),
            Map.entry("via", "single"),
            Map.entry("nodes", "1"));

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new LinkedHashMap<>(DEFAULTS);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--quick")) {
                opt.putAll(Map.of("creates", "2000", "once", "2000", "cron", "1000", "lead", "40"));
                continue;
            }
            if (!a.startsWith("--") || !DEFAULTS.containsKey(a.substring(2)) || i + 1 >= args.length) {
                System.err.println(
                        "options (defaults): " + DEFAULTS + "; --quick for small sizes; 0 or empty skips a phase");
                System.exit(2);
            }
            opt.put(a.substring(2), args[++i]);
        }
        new MassDue(opt, System.out).run();
        System.exit(0);
    }

    private int num(String name) {
        return Integer.parseInt(opt.get(name).replace("_", ""));
    }

    private List<Integer> nums(String name) {
        List<Integer> out = new ArrayList<>();
        for (String p : opt.get(name).split(","))
            if (!p.isBlank() && Integer.parseInt(p.trim()) > 0) out.add(Integer.parseInt(p.trim()));
        return out;
    }

    private boolean runs(String contender) {
        return List.of(opt.get("only").split(",")).contains(contender);
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return "load " + f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "load n/a";
        }
    }

    private void run() throws Exception {
        out.println(Bench.environment() + " | options " + opt);
        try (Receiver receiver = new Receiver(false, 16)) {
            if (num("creates") > 0) for (String store : opt.get("stores").split(",")) creates(store.trim(), receiver);
            for (int n : nums("once")) {
                if (runs("idem")) idemOnce(n, receiver);
                if (runs("db-scheduler")) dbSchedulerOnce(n, receiver, false);
            }
            if (num("cron") > 0) {
                if (runs("idem")) idemCron(num("cron"), receiver);
                if (runs("db-scheduler")) dbSchedulerOnce(num("cron"), receiver, true);
            }
        } finally {
            postgres.drop(opt.get("db"));
            postgres.drop(opt.get("db") + "_dbsa");
        }
    }

    /** A node on a store of {@code dialect}, engine running, rate limit off. */
    private record Node(IdemServer server, Store store, String base, Path dir) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            server.close();
            if (dir != null)
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder())
                            .forEach(p -> p.toFile().delete());
                }
        }
    }

    /** {@code --nodes} nodes on one fresh PostgreSQL database; the first one's API takes the creates. */
    private record Cluster(List<Node> nodes) implements AutoCloseable {
        Node first() {
            return nodes.get(0);
        }

        @Override
        public void close() throws Exception {
            Contender.closeAll(nodes);
        }
    }

    private Cluster cluster() throws Exception {
        List<Node> nodes = new ArrayList<>();
        try {
            for (int i = 1; i <= num("nodes"); i++) nodes.add(node("postgresql", i));
        } catch (Exception e) {
            try {
                Contender.closeAll(nodes);
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new Cluster(nodes);
    }

    /** Node {@code index} (from 1); the first one of a PostgreSQL run recreates the database, the others share it. */
    private Node node(String dialect, int index) throws Exception {
        Store store;
        Path dir = Files.createTempDirectory("idem-massdue");
        if (dialect.equals("sqlite")) {
            store = JdbcStores.open(StoreConfig.sqlite(dir), Clock.systemUTC());
        } else {
            if (index == 1) postgres.recreate(opt.get("db"));
            store = JdbcStores.open(
                    new StoreConfig(
                            postgres.url(opt.get("db")), base.user(), base.password(), 16, true, BenchKeys.KEYS),
                    Clock.systemUTC());
        }
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(KEY)
                .allowPrivateEndpoints(true)
                .nodeId("massdue-" + ProcessHandle.current().pid() + "-" + index)
                .rateLimitPerSecond(0)
                .build();
        IdemServer server = IdemServer.start(
                config,
                store,
                true,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        return new Node(server, store, "http://127.0.0.1:" + server.port(), dir);
    }

    private static byte[] once(String endpoint, Instant fireAt) {
        return ("{\"endpoint\":\"" + endpoint + "\",\"fire_at\":\"" + Rfc3339.format(fireAt) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private void creates(String dialect, Receiver receiver) throws Exception {
        int n = num("creates");
        int clients = num("clients");
        int batch = num("batch");
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        try (Node node = node(dialect, 1);
                ApiLoad api = new ApiLoad(node.base(), KEY, clients)) {
            List<byte[]> warm = new ArrayList<>();
            for (int i = 0; i < Math.min(n, 5_000); i++) warm.add(once(receiver.url(), tomorrow));
            api.post("/v1/schedules", warm, clients, 201, 1);
            List<byte[]> bodies = new ArrayList<>();
            for (int i = 0; i < n; i++) bodies.add(once(receiver.url(), tomorrow.plusMillis(i)));
            CpuUse c0 = CpuUse.sample();
            ApiLoad.Run single = api.post("/v1/schedules", bodies, clients, 201, 1);
            CpuUse.Span cpu = c0.until(CpuUse.sample());
            if (dialect.equals("postgresql")) apiRate = single.itemsPerSecond();
            print(
                    "creates %s: POST /v1/schedules, %d clients: %,d in %.2f s = %,.0f creates/s; %s",
                    dialect, clients, n, single.nanos() / 1e9, single.itemsPerSecond(), perItem(cpu, n));
            int batchClients = Math.min(clients, 4);
            c0 = CpuUse.sample();
            ApiLoad.Run batched =
                    api.post("/v1/schedules/batch", ApiLoad.batches(bodies, batch), batchClients, 200, batch);
            cpu = c0.until(CpuUse.sample());
            print(
                    "creates %s: POST /v1/schedules/batch of %d, %d clients: %,d in %.2f s = %,.0f creates/s; %s",
                    dialect, batch, batchClients, n, batched.nanos() / 1e9, batched.itemsPerSecond(), perItem(cpu, n));
            String hash = dev.idem.server.internal.ApiKeys.hash(KEY);
            int lookups = 5_000;
            c0 = CpuUse.sample();
            for (int i = 0; i < lookups; i++)
                node.store()
                        .inReadTransaction(tx -> tx.apiKeys().findByHash(hash))
                        .orElseThrow();
            cpu = c0.until(CpuUse.sample());
            print(
                    "creates %s: what the key cache saves per request, one key lookup (read transaction), 1 thread: %.0f µs wall; %s",
                    dialect, cpu.seconds() * 1e6 / lookups, perItem(cpu, lookups));
            Tenant tenant = node.store()
                    .inTransaction(tx -> new Tenant(
                            tx.projects().findByName("default").orElseThrow().id(), Mode.TEST));
            double bare1 = bare(node.store(), tenant, receiver.url(), tomorrow, n, 1, clients);
            print(
                    "creates %s: bare insert through the store ports, 1 per transaction, %d threads: %,.0f creates/s",
                    dialect, clients, bare1);
            double bareN = bare(node.store(), tenant, receiver.url(), tomorrow, n, batch, batchClients);
            print(
                    "creates %s: bare insert through the store ports, %d per transaction, %d threads: %,.0f creates/s",
                    dialect, batch, batchClients, bareN);
        }
    }

    private static String perItem(CpuUse.Span cpu, int n) {
        return String.format(
                "CPU per item: JVM (server, clients, receiver) %.0f µs, PostgreSQL (all processes) %.0f µs",
                cpu.jvmCores() * cpu.seconds() * 1e6 / n, cpu.postgresCores() * cpu.seconds() * 1e6 / n);
    }

    /** The rows a create writes (the schedule with its cursor past its occurrence, and its delivery), without the API. */
    private static double bare(Store store, Tenant tenant, String endpoint, Instant at, int n, int perTx, int threads)
            throws Exception {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++)
                parts.add(pool.submit(() -> {
                    IdGenerator ids = new IdGenerator(Clock.systemUTC(), new SplittableRandom());
                    for (int from; (from = next.getAndAdd(perTx)) < n; ) {
                        int to = Math.min(n, from + perTx);
                        int first = from;
                        store.useTransaction(tx -> {
                            Instant now = Instant.now();
                            List<Schedule> schedules = new ArrayList<>();
                            List<dev.idem.core.Delivery> deliveries = new ArrayList<>();
                            for (int i = first; i < to; i++) {
                                var def = ScheduleDefinition.builder(
                                                endpoint, new dev.idem.core.Timing.Once(at.plusMillis(i)))
                                        .build();
                                Materialisation.Plan plan = Materialisation.forNew(
                                        new Schedule(
                                                ids.next("sch"),
                                                tenant,
                                                ScheduleStatus.ACTIVE,
                                                def,
                                                at.plusMillis(i),
                                                0,
                                                null,
                                                0,
                                                now,
                                                now),
                                        at,
                                        ids,
                                        now);
                                schedules.add(plan.advanced(now));
                                deliveries.addAll(plan.deliveries());
                            }
                            tx.schedules().insertAll(schedules);
                            tx.deliveries().insertAll(deliveries);
                        });
                    }
                    return null;
                }));
            for (Future<?> f : parts) f.get();
        } finally {
            pool.shutdownNow();
        }
        return n / ((System.nanoTime() - t0) / 1e9);
    }

    /** When the run's instant falls: creation (estimated from the measured rate, doubled) plus the lead. */
    private Instant instantFor(int n) {
        long createMs = (long) (n / apiRate * 2_000);
        return Instant.now().plusMillis(createMs).plusSeconds(num("lead")).truncatedTo(ChronoUnit.SECONDS);
    }

    private void idemOnce(int n, Receiver receiver) throws Exception {
        try (Cluster cluster = cluster();
                ApiLoad api = new ApiLoad(cluster.first().base(), KEY, num("clients"))) {
            Node node = cluster.first();
            Instant due = instantFor(n);
            List<byte[]> bodies = new ArrayList<>();
            for (int i = 0; i < n; i++) bodies.add(once(receiver.url(), due));
            Receiver.Tally tally = receiver.begin(n, secret(node));
            long t0 = System.nanoTime();
            ApiLoad.Run made = opt.get("via").equals("batch")
                    ? api.post(
                            "/v1/schedules/batch",
                            ApiLoad.batches(bodies, num("batch")),
                            Math.min(4, num("clients")),
                            200,
                            num("batch"))
                    : api.post("/v1/schedules", bodies, num("clients"), 201, 1);
            print(
                    "once %,d idem%s: created through the API (%s) in %.1f s (%,.0f/s), due %s, %.1f s ahead",
                    n,
                    nodesLabel(),
                    opt.get("via"),
                    (System.nanoTime() - t0) / 1e9,
                    made.itemsPerSecond(),
                    due,
                    Duration.between(Instant.now(), due).toMillis() / 1e3);
            drain("once " + n, "idem" + nodesLabel(), n, due, tally, rowsAt(due));
        }
    }

    private void idemCron(int n, Receiver receiver) throws Exception {
        try (Cluster cluster = cluster();
                ApiLoad api = new ApiLoad(cluster.first().base(), KEY, num("clients"))) {
            Node node = cluster.first();
            Instant due = instantFor(n);
            var z = due.atZone(ZoneOffset.UTC);
            String cron = z.getSecond() + " " + z.getMinute() + " " + z.getHour() + " * * *";
            byte[] body = ("{\"endpoint\":\"" + receiver.url() + "\",\"cron\":\"" + cron + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            Receiver.Tally tally = receiver.begin(n, secret(node));
            ApiLoad.Run made =
                    api.post("/v1/schedules", java.util.Collections.nCopies(n, body), num("clients"), 201, 1);
            print(
                    "cron %,d idem%s: '%s' UTC created through the API in %.1f s, due %s, %.1f s ahead (horizon %s)",
                    n,
                    nodesLabel(),
                    cron,
                    made.nanos() / 1e9,
                    due,
                    Duration.between(Instant.now(), due).toMillis() / 1e3,
                    EngineConfig.defaults("x").materialiserHorizon());
            drain("cron " + n, "idem" + nodesLabel(), n, due, tally, rowsAt(due));
        }
    }

    private void dbSchedulerOnce(int n, Receiver receiver, boolean cron) throws Exception {
        try (DbSchedulerContender c = new DbSchedulerContender(base, receiver, postgres, SignedPost.Http.APACHE)) {
            Instant due =
                    Instant.now().plusSeconds(Math.max(10, num("lead") / 3)).truncatedTo(ChronoUnit.SECONDS);
            Receiver.Tally tally = receiver.begin(n, c.secret());
            long t0 = System.nanoTime();
            if (cron) {
                var z = due.atZone(ZoneOffset.UTC);
                c.writeCron("c", n, z.getSecond() + " " + z.getMinute() + " " + z.getHour() + " * * *");
            } else {
                for (int from = 0; from < n; from += Contender.WRITE_CHUNK)
                    c.write("once" + n, receiver.url(), from, Math.min(n, from + Contender.WRITE_CHUNK), i -> due);
            }
            print(
                    "%s %,d db-scheduler+apache%s: scheduleBatch in %.1f s, due %s",
                    cron ? "cron" : "once", n, nodesLabel(), (System.nanoTime() - t0) / 1e9, due);
            drain((cron ? "cron " : "once ") + n, "db-scheduler+apache" + nodesLabel(), n, due, tally, -1);
        }
    }

    /** {@code " (N nodes)"} when the timed phases run several nodes per contender, else nothing. */
    private String nodesLabel() {
        return num("nodes") > 1 ? " (" + num("nodes") + " nodes)" : "";
    }

    private SigningSecret secret(Node node) throws Exception {
        var r = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create(node.base() + "/v1/signing-secret"))
                                .header("Authorization", "Bearer " + KEY)
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        return SigningSecret.parse(JSON.readTree(r.body()).get("secret").asText());
    }

    /** Idem's delivery rows for {@code due}, counted 100 ms before it (-1 when not counted). */
    private long rowsAt(Instant due) throws Exception {
        long wait = Duration.between(Instant.now(), due).toMillis() - 100;
        if (wait < 0) return -1;
        Thread.sleep(wait);
        try (Connection c = DriverManager.getConnection(postgres.url(opt.get("db")), base.user(), base.password());
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM deliveries WHERE scheduled_for = ?")) {
            ps.setLong(1, due.toEpochMilli());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void drain(String phase, String who, int n, Instant due, Receiver.Tally tally, long rowsBefore)
            throws Exception {
        long wait = Duration.between(Instant.now(), due).toMillis();
        if (wait > 0) Thread.sleep(wait);
        String loadAtDue = load();
        Instant deadline = due.plusSeconds(Math.max(60, n / 500));
        while (tally.unique() < n && Instant.now().isBefore(deadline)) Thread.sleep(5);
        Thread.sleep(300);
        long dueMicros = due.getEpochSecond() * 1_000_000L + due.getNano() / 1_000;
        double first = (tally.firstMicros() - dueMicros) / 1e3;
        double last = (tally.lastMicros() - dueMicros) / 1e6;
        print(
                "%s %s: first delivery %+.1f ms after the instant, last %.3f s after (%,.0f/s); %,d of %,d delivered, %d duplicates, %d early, "
                        + "%d bad signatures%s; %s at the instant",
                phase,
                who,
                first,
                last,
                n / last,
                tally.unique(),
                n,
                tally.duplicates(),
                tally.early(),
                tally.badSignatures(),
                rowsBefore < 0 ? "" : String.format("; %,d rows existed 100 ms before it", rowsBefore),
                loadAtDue);
    }

    private void print(String format, Object... args) {
        out.println(String.format(format, args) + " | " + load());
        out.flush();
    }
}
