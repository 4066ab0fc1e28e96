package dev.idem.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.IdGenerator;
import dev.idem.core.InternalOneShots;
import dev.idem.core.Mode;
import dev.idem.core.Origin;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.StripeSignatureVerifier;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * Issue 14's benchmark: an inbound source's ingest route on PostgreSQL, beside a bare insert. Three ways of writing
 * the same number of events, each from {@code --clients} threads, each event its own transaction:
 *
 * <ol>
 *   <li><b>ingest</b>: {@code POST /in/{source_id}} on a real node (loopback HTTP, kept-alive Apache HttpClient
 *       clients), Stripe-signed bodies with distinct event ids; the figure is the time from sending to the 200 (which
 *       comes after the commit) and events/s. The node's engine runs and forwards every event to a loopback receiver
 *       meanwhile, as in production.</li>
 *   <li><b>store</b>: the same events written by {@link InternalOneShots#create} through the store port, no HTTP, no
 *       verification: what the write itself costs (the dedup reservation, the schedule row, the delivery row).</li>
 *   <li><b>bare insert</b>: one {@code INSERT} of (id, body) into a table with a primary key, autocommit, over a
 *       HikariCP pool: the floor any durable "accept then answer" endpoint pays.</li>
 * </ol>
 *
 * Run: {@code java -XX:+UseParallelGC -cp idem-bench/target/idem-bench.jar dev.idem.bench.SourceIngestRun
 * [--events 20000] [--clients 16] [--db idem_bench_sources]}.
 */
public final class SourceIngestRun {
    private static final String KEY = "sk_test_sources_bench_0123456789";
    private static final String SECRET = "whsec_bench_source_secret";
    private static final ObjectMapper JSON = new ObjectMapper();

    private SourceIngestRun() {}

    record Figure(String what, int n, long nanos, Histogram micros) {
        String line() {
            return String.format(
                    "%-12s %,7d events in %6.2f s = %,7.0f events/s; latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
                    what,
                    n,
                    nanos / 1e9,
                    n / (nanos / 1e9),
                    micros.getValueAtPercentile(50) / 1000.0,
                    micros.getValueAtPercentile(90) / 1000.0,
                    micros.getValueAtPercentile(99) / 1000.0,
                    micros.getMaxValue() / 1000.0);
        }
    }

    interface Work {
        void run(int i) throws Exception;
    }

    /** Runs {@code work(0..n-1)} from {@code clients} threads, timing each call. */
    static Figure timed(String what, int n, int clients, Work work) throws Exception {
        Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int c = 0; c < clients; c++)
                parts.add(pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < n; ) {
                        long s = System.nanoTime();
                        work.run(i);
                        long us = (System.nanoTime() - s) / 1000;
                        synchronized (h) {
                            h.recordValue(Math.min(us, h.getHighestTrackableValue()));
                        }
                    }
                    return null;
                }));
            for (Future<?> f : parts) f.get();
        } finally {
            pool.shutdownNow();
        }
        return new Figure(what, n, System.nanoTime() - t0, h);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt =
                new LinkedHashMap<>(Map.of("events", "20000", "clients", "16", "db", "idem_bench_sources"));
        for (int i = 0; i + 1 < args.length; i += 2) opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        int n = Integer.parseInt(opt.get("events"));
        int clients = Integer.parseInt(opt.get("clients"));
        String db = opt.get("db");
        BenchOptions base = BenchOptions.parse(new String[] {"--db", db});
        Postgres postgres = new Postgres(base);
        System.out.println(Bench.environment() + " | options " + opt);
        postgres.recreate(db);
        Path dir = Files.createTempDirectory("idem-sources-bench");
        List<Figure> figures = new ArrayList<>();
        try (Receiver receiver = new Receiver(false, 16)) {
            Store store = JdbcStores.open(
                    new StoreConfig(postgres.url(db), base.user(), base.password(), 16, true, BenchKeys.KEYS),
                    Clock.systemUTC());
            ServerConfig config = ServerConfig.builder()
                    .port(0)
                    .dataDir(dir)
                    .bootstrapKey(KEY)
                    .allowPrivateEndpoints(true)
                    .nodeId("sources-bench")
                    .rateLimitPerSecond(0)
                    .build();
            IdemServer server = IdemServer.start(
                    config,
                    store,
                    true,
                    Clock.systemUTC(),
                    new SecureRandom(),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            String baseUrl = "http://127.0.0.1:" + server.port();
            try (CloseableHttpClient http = HttpClients.custom()
                    .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                            .setMaxConnTotal(clients)
                            .setMaxConnPerRoute(clients)
                            .build())
                    .disableAutomaticRetries()
                    .build()) {
                HttpPost create = new HttpPost(baseUrl + "/v1/sources");
                create.addHeader("Authorization", "Bearer " + KEY);
                create.setEntity(new ByteArrayEntity(
                        ("{\"name\":\"bench\",\"verify\":{\"scheme\":\"stripe\",\"secret\":\"" + SECRET
                                        + "\"},\"destination\":\"" + receiver.url() + "\",\"rate_limit\":100000}")
                                .getBytes(StandardCharsets.UTF_8),
                        ContentType.APPLICATION_JSON));
                String sourceId = http.execute(
                        create,
                        r -> JSON.readTree(EntityUtils.toString(r.getEntity()))
                                .get("id")
                                .asText());
                Work ingest = i -> {
                    byte[] body = ("{\"id\":\"evt_" + i + "_" + System.nanoTime()
                                    + "\",\"object\":\"event\",\"type\":\"invoice.paid\","
                                    + "\"data\":{\"object\":{\"id\":\"in_" + i
                                    + "\",\"amount_paid\":4200,\"currency\":\"eur\"}}}")
                            .getBytes(StandardCharsets.UTF_8);
                    HttpPost post = new HttpPost(baseUrl + "/in/" + sourceId);
                    post.addHeader(
                            "Stripe-Signature",
                            StripeSignatureVerifier.sign(SECRET, Instant.now().getEpochSecond(), body));
                    post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
                    int status = http.execute(post, r -> {
                        EntityUtils.consume(r.getEntity());
                        return r.getCode();
                    });
                    if (status != 200) throw new IllegalStateException("ingest answered " + status);
                };
                timed("warm-up", Math.min(n, 5_000), clients, ingest);
                figures.add(timed("ingest", n, clients, ingest));
            }
            IdGenerator ids = IdGenerator.system();
            Tenant tenant = new Tenant("prj_bench", Mode.TEST);
            figures.add(timed("store", n, clients, i -> {
                byte[] body =
                        ("{\"id\":\"evt_s" + i + "\",\"type\":\"invoice.paid\"}").getBytes(StandardCharsets.UTF_8);
                store.inTransaction(tx -> InternalOneShots.create(
                        tx,
                        ids,
                        InternalOneShots.Request.of(
                                        tenant, Origin.source("src_bench"), receiver.url(), body, "application/json")
                                .withDedupId("evt_s" + i),
                        Instant.now()));
            }));
            server.close();
            store.close();
        }
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(postgres.url(db));
        hc.setUsername(base.user());
        if (base.password() != null) hc.setPassword(base.password());
        hc.setMaximumPoolSize(clients);
        try (HikariDataSource ds = new HikariDataSource(hc)) {
            try (Connection c = ds.getConnection()) {
                c.createStatement()
                        .execute(
                                "CREATE TABLE bare_events (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at BIGINT NOT NULL)");
            }
            figures.add(timed("bare insert", n, clients, i -> {
                try (Connection c = ds.getConnection();
                        PreparedStatement ps = c.prepareStatement("INSERT INTO bare_events VALUES (?, ?, ?)")) {
                    ps.setString(1, "evt_" + i);
                    ps.setString(2, "{\"id\":\"evt_" + i + "\",\"type\":\"invoice.paid\"}");
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }));
        } finally {
            postgres.drop(db);
        }
        System.out.println("== inbound source ingest on PostgreSQL, " + clients
                + " clients, one event per transaction (" + MassDue.load() + ")");
        for (Figure f : figures) System.out.println(f.line());
        System.exit(0);
    }
}
