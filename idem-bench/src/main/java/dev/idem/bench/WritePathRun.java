package dev.idem.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.core.store.Store;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.HmacSha256Verifier;
import dev.idem.wire.Rfc3339;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * The write path as providers and API callers meet it, per store, on one node with its engine forwarding meanwhile:
 * {@code POST /in/{id}} on an {@code hmac_sha256} source (a distinct event id per request in a header the source
 * deduplicates on) and single {@code POST /v1/schedules} one-shots a day ahead, each at every connection count of
 * {@code --conns}, each request timed from sending to its answer (which follows the commit). On PostgreSQL the
 * database's own ceiling in the same run: single-row autocommit inserts and {@code --rows}-row inserts, one per
 * transaction, from 16 connections. Each line prints the CPU used (this JVM, PostgreSQL) per request.
 *
 * <p>Run: {@code java -XX:+UseParallelGC -cp idem-bench/target/idem-bench.jar dev.idem.bench.WritePathRun
 * [--stores postgresql,sqlite] [--events 5000] [--creates 5000] [--conns 16,64] [--rows 50] [--db idem_bench_write]}.
 */
public final class WritePathRun {
    private static final String KEY = "sk_test_write_path_bench_0123456";
    private static final String SECRET = "bench_hmac_secret_0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    private WritePathRun() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new LinkedHashMap<>(Map.of(
                "stores", "postgresql,sqlite",
                "events", "5000",
                "creates", "5000",
                "conns", "16,64",
                "rows", "50",
                "db", "idem_bench_write"));
        opt.putAll(Map.of(
                "batches", "100",
                "batch-rows", "100",
                "messages-rate", "1000",
                "messages-seconds", "10",
                "fanout", "10",
                "profile", "true"));
        for (int i = 0; i + 1 < args.length; i += 2) opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        String db = opt.get("db");
        BenchOptions base = BenchOptions.parse(new String[] {"--db", db});
        Postgres postgres = new Postgres(base);
        CpuUse.countBackendsOf(db);
        System.out.println(Bench.environment() + " | options " + opt);
        List<String> lines = new ArrayList<>();
        for (String dialect : opt.get("stores").split(",")) lines.addAll(store(dialect, opt, postgres, base));
        if (opt.get("stores").contains("postgresql")) lines.addAll(WriteCeilings.postgres(opt, postgres, base));
        if (opt.get("stores").contains("sqlite")) lines.addAll(WriteCeilings.sqlite(opt));
        lines.add(RequestCpu.line());
        System.out.println("== write path, one node (" + MassDue.load() + ")");
        lines.forEach(System.out::println);
        System.exit(0);
    }

    private static List<String> store(String dialect, Map<String, String> opt, Postgres postgres, BenchOptions base)
            throws Exception {
        List<String> out = new ArrayList<>();
        Path dir = Files.createTempDirectory("idem-write-bench");
        String db = opt.get("db");
        Store store;
        if (dialect.equals("sqlite")) {
            store = JdbcStores.open(StoreConfig.sqlite(dir), Clock.systemUTC());
        } else {
            postgres.recreate(db);
            store = JdbcStores.open(
                    new StoreConfig(postgres.url(db), base.user(), base.password(), 16, true, BenchKeys.KEYS),
                    Clock.systemUTC());
        }
        int maxConns = 0;
        for (String c : opt.get("conns").split(",")) maxConns = Math.max(maxConns, Integer.parseInt(c));
        try (Receiver receiver = new Receiver(false, 16);
                IdemServer server = IdemServer.start(
                        ServerConfig.builder()
                                .port(0)
                                .dataDir(dir)
                                .bootstrapKey(KEY)
                                .allowPrivateEndpoints(true)
                                .nodeId("write-bench")
                                .rateLimitPerSecond(0)
                                .build(),
                        store,
                        true,
                        Clock.systemUTC(),
                        new SecureRandom(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                CloseableHttpClient http = HttpClients.custom()
                        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                                .setMaxConnTotal(maxConns)
                                .setMaxConnPerRoute(maxConns)
                                .build())
                        .disableAutomaticRetries()
                        .build()) {
            String url = "http://127.0.0.1:" + server.port();
            HttpPost create = new HttpPost(url + "/v1/sources");
            create.addHeader("Authorization", "Bearer " + KEY);
            create.setEntity(new ByteArrayEntity(
                    ("{\"name\":\"bench\",\"verify\":{\"scheme\":\"hmac_sha256\",\"secret\":\"" + SECRET
                                    + "\",\"header\":\"X-Bench-Hmac\"},\"dedup\":\"header:X-Event-Id\","
                                    + "\"destination\":\"" + receiver.url() + "\",\"rate_limit\":100000}")
                            .getBytes(StandardCharsets.UTF_8),
                    ContentType.APPLICATION_JSON));
            String sourceId = http.execute(
                    create,
                    r -> JSON.readTree(EntityUtils.toString(r.getEntity()))
                            .get("id")
                            .asText());
            String run = Long.toString(System.nanoTime(), 36);
            SourceIngestRun.Work ingest = i -> {
                byte[] body = ("{\"id\":\"evt_" + run + "_" + i + "\",\"type\":\"orders/paid\",\"data\":{\"order\":" + i
                                + ",\"amount\":4200,\"currency\":\"eur\"}}")
                        .getBytes(StandardCharsets.UTF_8);
                HttpPost post = new HttpPost(url + "/in/" + sourceId);
                post.addHeader("X-Bench-Hmac", HmacSha256Verifier.sign(SECRET, HmacSha256Verifier.Encoding.HEX, body));
                post.addHeader("X-Event-Id", "evt_" + run + "_" + i);
                post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
                expect(http, post, 200);
            };
            Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
            SourceIngestRun.Work creates = i -> {
                HttpPost post = new HttpPost(url + "/v1/schedules");
                post.addHeader("Authorization", "Bearer " + KEY);
                post.setEntity(new ByteArrayEntity(
                        ("{\"endpoint\":\"" + receiver.url() + "\",\"fire_at\":\""
                                        + Rfc3339.format(tomorrow.plusMillis(i)) + "\"}")
                                .getBytes(StandardCharsets.UTF_8),
                        ContentType.APPLICATION_JSON));
                expect(http, post, 201);
            };
            int events = Integer.parseInt(opt.get("events"));
            int n = Integer.parseInt(opt.get("creates"));
            SourceIngestRun.timed("warm-up", Math.min(events, 3_000), 16, offset(ingest, 10_000_000));
            SourceIngestRun.timed("warm-up", Math.min(n, 3_000), 16, offset(creates, 10_000_000));
            boolean profile = Boolean.parseBoolean(opt.get("profile"));
            for (String c : opt.get("conns").split(",")) {
                int conns = Integer.parseInt(c);
                boolean last = c.equals(opt.get("conns").replaceAll(".*,", ""));
                out.addAll(grouped(
                        store,
                        () -> profiled(
                                profile && last,
                                () -> measured(
                                        dialect + " ingest " + conns,
                                        events,
                                        conns,
                                        offset(ingest, conns * 100_000)))));
                out.addAll(grouped(
                        store,
                        () -> profiled(
                                profile && last,
                                () -> measured(
                                        dialect + " create " + conns, n, conns, offset(creates, conns * 100_000)))));
            }
            int batches = Integer.parseInt(opt.get("batches"));
            int rows = Integer.parseInt(opt.get("batch-rows"));
            SourceIngestRun.Work batch = i -> {
                StringBuilder b = new StringBuilder("{\"schedules\":[");
                for (int r = 0; r < rows; r++)
                    b.append(r == 0 ? "" : ",")
                            .append("{\"endpoint\":\"")
                            .append(receiver.url())
                            .append("\",\"fire_at\":\"")
                            .append(Rfc3339.format(tomorrow.plusMillis(5_000_000L + (long) i * rows + r)))
                            .append("\"}");
                HttpPost post = new HttpPost(url + "/v1/schedules/batch");
                post.addHeader("Authorization", "Bearer " + KEY);
                post.setEntity(new ByteArrayEntity(
                        b.append("]}").toString().getBytes(StandardCharsets.UTF_8), ContentType.APPLICATION_JSON));
                expect(http, post, 200);
            };
            String line = measured(dialect + " batch " + rows + " 16", batches, 16, batch);
            double seconds = Double.parseDouble(line.replaceAll(".* in +([0-9.]+) s = .*", "$1"));
            out.add(line
                    + String.format(
                            " (figures per request of %d schedules: %,.0f rows/s)", rows, batches * rows / seconds));
            int maxConn = maxConns;
            out.add(MessagesPhase.run(
                    http,
                    url,
                    KEY,
                    dialect + " messages " + maxConn,
                    Integer.parseInt(opt.get("messages-rate")),
                    Integer.parseInt(opt.get("messages-seconds")),
                    Integer.parseInt(opt.get("fanout")),
                    maxConn));
        } finally {
            store.close();
            if (dialect.equals("postgresql")) postgres.drop(db);
        }
        return out;
    }

    /**
     * {@code lines}, the first one followed by what the store's group commit did meanwhile (the engine's own writes
     * do not go through it): works per group, so statements per request are the group's statements over that.
     */
    private static List<String> grouped(Store store, java.util.concurrent.Callable<List<String>> phase)
            throws Exception {
        dev.idem.core.store.WriteGroups g0 = store.writeGroups();
        List<String> lines = new ArrayList<>(phase.call());
        dev.idem.core.store.WriteGroups g1 = store.writeGroups();
        long groups = g1.groups() - g0.groups();
        long works = g1.works() - g0.works();
        lines.set(
                0,
                lines.get(0)
                        + String.format(
                                " | group commit: %,d works in %,d groups (%.1f a group), %d rerun",
                                works, groups, works / (double) Math.max(1, groups), g1.rerun() - g0.rerun()));
        return lines;
    }

    /** A phase's figure line, with where the JVM's CPU went (JFR) when {@code profile}. */
    private static List<String> profiled(boolean profile, java.util.concurrent.Callable<String> phase)
            throws Exception {
        if (!profile) return List.of(phase.call());
        try (JfrBreakdown jfr = new JfrBreakdown()) {
            String line = phase.call();
            List<String> out = new ArrayList<>();
            out.add(line);
            out.addAll(jfr.stop());
            return out;
        }
    }

    private static SourceIngestRun.Work offset(SourceIngestRun.Work w, int by) {
        return i -> w.run(i + by);
    }

    static String measured(String what, int n, int conns, SourceIngestRun.Work work) throws Exception {
        CpuUse c0 = CpuUse.sample();
        SourceIngestRun.Figure f = SourceIngestRun.timed(what, n, conns, work);
        CpuUse.Span cpu = c0.until(CpuUse.sample());
        return String.format(
                "%s | CPU per request: JVM %.0f µs, PostgreSQL %.0f µs; machine %.2f cores busy",
                f.line(),
                cpu.jvmCores() * cpu.seconds() * 1e6 / n,
                cpu.postgresCores() * cpu.seconds() * 1e6 / n,
                cpu.machineCores());
    }

    private static void expect(CloseableHttpClient http, HttpPost post, int status) throws Exception {
        String bad = http.execute(
                post, r -> r.getCode() == status ? null : r.getCode() + " " + EntityUtils.toString(r.getEntity()));
        if (bad != null) throw new IllegalStateException(post.getRequestUri() + " answered " + bad);
    }
}
