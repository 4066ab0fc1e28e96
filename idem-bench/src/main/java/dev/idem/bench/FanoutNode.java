package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.core.store.Store;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import dev.idem.wire.SigningSecret;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * One node of {@link FanoutRun}: a fresh PostgreSQL database, the server with its engine (production defaults but
 * loopback endpoints allowed, no API rate limit), and a kept-alive HTTP client of its API. Closing it stops the node
 * and drops the database.
 */
final class FanoutNode implements AutoCloseable {
    private static final String KEY = "sk_test_fanout_bench_0123456789";
    private final Postgres postgres;
    private final String db;
    private final Store store;
    private final IdemServer server;
    private final PooledHttp http = new PooledHttp(64);
    private final String api;

    FanoutNode(Postgres postgres, BenchOptions base, String db) throws Exception {
        this.postgres = postgres;
        this.db = db;
        postgres.recreate(db);
        CpuUse.countBackendsOf(db);
        Path dir = Files.createTempDirectory("idem-fanout-bench");
        store = JdbcStores.open(
                new StoreConfig(postgres.url(db), base.user(), base.password(), 16, true, BenchKeys.KEYS),
                Clock.systemUTC());
        server = IdemServer.start(
                ServerConfig.builder()
                        .port(0)
                        .dataDir(dir)
                        .bootstrapKey(KEY)
                        .allowPrivateEndpoints(true)
                        .nodeId("fanout-bench")
                        .rateLimitPerSecond(0)
                        .build(),
                store,
                true,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        api = "http://127.0.0.1:" + server.port();
    }

    /** Creates one endpoint per URL subscribed to {@code eventType}, from 16 threads; their secrets by endpoint id. */
    Map<String, SigningSecret> endpoints(List<String> urls, String eventType) throws Exception {
        Map<String, SigningSecret> secrets = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> parts = new java.util.ArrayList<>();
            for (int t = 0; t < 16; t++)
                parts.add(pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < urls.size(); ) {
                        String id = call(
                                        new HttpPost(api + "/v1/endpoints"),
                                        "{\"url\":\"" + urls.get(i) + "\",\"event_types\":[\"" + eventType + "\"]}",
                                        201)
                                .path("id")
                                .asText();
                        String secret = call(new HttpGet(api + "/v1/endpoints/" + id + "/secret"), null, 200)
                                .path("secret")
                                .asText();
                        secrets.put(id, SigningSecret.parse(secret));
                    }
                    return null;
                }));
            for (Future<?> f : parts) f.get();
        } finally {
            pool.shutdownNow();
        }
        return secrets;
    }

    /** {@code POST /v1/messages}: the 201's body. */
    JsonNode send(String eventType, String payload) throws IOException {
        return call(
                new HttpPost(api + "/v1/messages"),
                "{\"event_type\":\"" + eventType + "\",\"payload\":" + payload + "}",
                201);
    }

    private JsonNode call(HttpUriRequestBase request, String body, int expected) throws IOException {
        request.addHeader("Authorization", "Bearer " + KEY);
        if (body != null) request.setEntity(new StringEntity(body, ContentType.APPLICATION_JSON));
        return http.client.execute(request, r -> {
            String text = EntityUtils.toString(r.getEntity());
            if (r.getCode() != expected)
                throw new IOException(
                        request.getMethod() + " " + request.getRequestUri() + " answered " + r.getCode() + ": " + text);
            return FanoutRun.JSON.readTree(text);
        });
    }

    @Override
    public void close() throws Exception {
        http.close();
        server.close();
        store.close();
        postgres.drop(db);
    }
}
