package dev.idem.bench;

import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * The CPU a node's HTTP request threads spend per request on its cheapest route ({@code GET /healthz}: no store, no
 * authentication), where the per-request work every route shares (Jetty, Javalin, the request timer of {@code
 * /metrics}) is most of the request: run on two builds, it shows what a change to that shared work saves. Counted
 * from the request threads' own CPU time (ThreadMXBean), so the load client and the engine are left out; rounds are
 * repeated because a shared machine moves the figure.
 *
 * <pre>java -cp idem-bench.jar dev.idem.bench.RequestMetersRun [requests per round, default 20000] [rounds, 5]</pre>
 */
final class RequestMetersRun {
    private static final int CONNECTIONS = 8;

    private RequestMetersRun() {}

    public static void main(String[] args) throws Exception {
        int perRound = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Files.createTempDirectory("idem-request-meters");
        try (IdemServer server = IdemServer.start(
                        ServerConfig.builder()
                                .port(0)
                                .dataDir(dir)
                                .bootstrapKey("sk_test_request_meters_bench_012")
                                .nodeId("request-meters")
                                .rateLimitPerSecond(0)
                                .build(),
                        JdbcStores.open(StoreConfig.sqlite(dir), Clock.systemUTC()),
                        true,
                        Clock.systemUTC(),
                        new SecureRandom(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                PooledHttp pooled = new PooledHttp(CONNECTIONS)) {
            CloseableHttpClient http = pooled.client;
            String url = "http://127.0.0.1:" + server.port() + "/healthz";
            round(http, url, perRound); // warm-up
            List<String> figures = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                long[] before = cpu();
                long t0 = System.nanoTime();
                round(http, url, perRound);
                long wall = System.nanoTime() - t0;
                long[] after = cpu();
                figures.add(String.format(
                        "%.1f (JVM %.1f, %,.0f/s)",
                        (after[0] - before[0]) / 1e3 / perRound,
                        (after[1] - before[1]) / 1e3 / perRound,
                        perRound / (wall / 1e9)));
            }
            System.out.println("GET /healthz, " + CONNECTIONS + " keep-alive connections, " + perRound
                    + " requests a round: request-thread CPU µs per request by round (whole JVM, rate): "
                    + String.join("; ", figures));
        }
    }

    private static void round(CloseableHttpClient http, String url, int n) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++)
                done.add(pool.submit(() -> {
                    while (next.getAndIncrement() < n)
                        http.execute(new HttpGet(url), response -> {
                            if (response.getCode() != 200)
                                throw new IllegalStateException("GET /healthz answered " + response.getCode());
                            return EntityUtils.toByteArray(response.getEntity());
                        });
                    return null;
                }));
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdown();
        }
    }

    /** CPU nanoseconds so far: of the HTTP server's request threads, and of the whole JVM. */
    private static long[] cpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long requests = 0;
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t == null) continue;
            String name = t.getThreadName();
            if (!name.startsWith("JettyServerThreadPool") && !name.startsWith("qtp")) continue;
            long c = mx.getThreadCpuTime(t.getThreadId());
            if (c > 0) requests += c;
        }
        long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new long[] {requests, jvm};
    }
}
