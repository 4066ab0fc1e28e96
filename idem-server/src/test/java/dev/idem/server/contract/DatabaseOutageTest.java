package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.store.JdbcStores;
import dev.idem.store.testing.PrivatePostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real PostgreSQL stopped under a crowd of API clients (a private server: {@link PrivatePostgres}). While it is
 * down, {@code /healthz} answers within a liveness probe's usual 1 s timeout, every API call is a 503 with {@code
 * Retry-After}, in a median time far below the pool's connection timeout (no request thread waits the pool's 5 s out),
 * and {@code /readyz} turns 503; once it is back, {@code /readyz} and the API recover by themselves.
 */
class DatabaseOutageTest {
    static final String KEY = ContractServer.TEST_KEY;
    /** More than the server's 250 request threads, as in a real outage with many clients. */
    static final int CLIENTS = 300;
    /** A liveness probe's usual timeout (Kubernetes' default is 1 s). */
    static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(1);
    /** Twice the pool's connection timeout: an answer, late or not, is what this client wants. */
    static final Duration API_TIMEOUT = JdbcStores.CONNECTION_TIMEOUT.multipliedBy(2);

    /** Misses in a row after which an orchestrator restarts a node (Kubernetes' default failureThreshold). */
    static final int FAILURE_THRESHOLD = 3;

    /** Clients retry a 503 after this, sooner than its Retry-After asks: the crowd keeps pressing. */
    static final Duration RETRY_SOON = Duration.ofMillis(250);

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    record Outcome(int status, String retryAfter, String code) {}

    @Test
    void healthzAnswersApiCallsAre503WithRetryAfterAndReadyzTurnsAndComesBackWhenPostgresStops() throws Exception {
        try (PrivatePostgres pg = PrivatePostgres.create();
                ContractServer node = ContractServer.start(pg.open(Clock.systemUTC()), dir, true, true, 0)) {
            String base = "http://127.0.0.1:" + node.server.port();
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            // the orchestrator's checks come from a client of their own, as they would
            HttpClient probes = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(HEALTH_TIMEOUT)
                    .build();
            assertThat(call(http, base, "POST", "/v1/schedules", body("before"), Duration.ofSeconds(30))
                            .status())
                    .isEqualTo(201);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> call(http, base, "GET", "/readyz", null, Duration.ofSeconds(5))
                                    .status()
                            == 200);

            AtomicBoolean outage = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            java.util.Queue<Long> outageMillis = new java.util.concurrent.ConcurrentLinkedQueue<>();
            Map<String, Integer> failures = new ConcurrentHashMap<>();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                running.add(clients.submit(() -> {
                    for (int n = 0; !stop.get(); n++) {
                        boolean down = outage.get();
                        long t0 = System.nanoTime();
                        Outcome o;
                        try {
                            o = n % 2 == 0
                                    ? call(http, base, "GET", "/v1/schedules?limit=2", null, API_TIMEOUT)
                                    : call(
                                            http,
                                            base,
                                            "POST",
                                            "/v1/schedules",
                                            body("c" + client + "-" + n),
                                            API_TIMEOUT);
                        } catch (Exception e) {
                            if (down && outage.get())
                                failures.merge("no answer within " + API_TIMEOUT + ": " + e, 1, Integer::sum);
                            continue;
                        }
                        long took = System.nanoTime() - t0;
                        if (o.status() == 503) Thread.sleep(RETRY_SOON.toMillis());
                        if (!down || !outage.get()) continue; // the stop and the restart race these calls
                        outageMillis.add(TimeUnit.NANOSECONDS.toMillis(took));
                        if (o.status() != 503
                                || o.retryAfter() == null
                                || !(o.code().equals("store_unavailable")
                                        || o.code().equals("node_busy"))) failures.merge(o.toString(), 1, Integer::sum);
                    }
                    return null;
                }));
            }
            try {
                Thread.sleep(500); // the crowd is at work on a live database
                pg.stop();
                long stopped = System.nanoTime();
                outage.set(true); // calls that begin from now on meet a stopped database
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> call(probes, base, "GET", "/readyz", null, Duration.ofSeconds(5))
                                        .status()
                                == 503);
                System.out.printf(
                        "readyz turned 503 %d ms after PostgreSQL stopped, under %d clients%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped), CLIENTS);

                // as an orchestrator checks: a 1 s timeout, and a restart after FAILURE_THRESHOLD misses in a row (a
                // miss now and then is this shared test machine's load; waiting on the store would miss every time)
                int healthMissed = 0, readyMissed = 0, healthMissedInARow = 0, readyMissedInARow = 0;
                for (int i = 0; i < 20; i++) {
                    Outcome health = probe(probes, base, "/healthz");
                    if (health == null) healthMissedInARow = Math.max(healthMissedInARow, ++healthMissed);
                    else {
                        assertThat(health.status()).isEqualTo(200);
                        healthMissed = 0;
                    }
                    Outcome ready = probe(probes, base, "/readyz");
                    if (ready == null) readyMissedInARow = Math.max(readyMissedInARow, ++readyMissed);
                    else {
                        assertThat(ready.status()).isEqualTo(503);
                        readyMissed = 0;
                    }
                    Thread.sleep(200);
                }
                assertThat(healthMissedInARow)
                        .as("/healthz checks in a row without an answer within %s", HEALTH_TIMEOUT)
                        .isLessThan(FAILURE_THRESHOLD);
                assertThat(readyMissedInARow)
                        .as("/readyz checks in a row without an answer within %s", HEALTH_TIMEOUT)
                        .isLessThan(FAILURE_THRESHOLD);
                await().atMost(Duration.ofSeconds(30)).until(() -> outageMillis.size() >= CLIENTS);
                // the crowd leaves before the database comes back: on a small shared machine it would starve the
                // recovery of CPU, and what it was for is checked
                outage.set(false);
                stop.set(true);
                for (Future<?> f : running) f.get(60, TimeUnit.SECONDS);
                pg.start();

                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions()
                        .until(() -> call(http, base, "GET", "/readyz", null, Duration.ofSeconds(5))
                                        .status()
                                == 200);
                await().atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> call(http, base, "GET", "/v1/schedules?limit=1", null, Duration.ofSeconds(10))
                                        .status()
                                == 200);
                assertThat(call(http, base, "POST", "/v1/schedules", body("after"), Duration.ofSeconds(30))
                                .status())
                        .isEqualTo(201);
            } finally {
                stop.set(true);
                clients.shutdown();
                assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }
            for (Future<?> f : running) f.get();
            assertThat(failures)
                    .as("API calls during the outage that were not a 503 with Retry-After (of %d)", outageMillis.size())
                    .isEmpty();
            List<Long> millis = new ArrayList<>(outageMillis);
            java.util.Collections.sort(millis);
            long median = millis.get(millis.size() / 2);
            System.out.printf(
                    "%d API calls during the outage: median %d ms, p90 %d ms, max %d ms%n",
                    millis.size(), median, millis.get(millis.size() * 9 / 10), millis.get(millis.size() - 1));
            // without the gate each of them waits the pool's connection timeout out; the median is robust to this
            // shared machine's load
            assertThat(median)
                    .as("median time to a 503 during the outage, ms")
                    .isLessThan(JdbcStores.CONNECTION_TIMEOUT.toMillis());
        }
    }

    static String body(String dedupId) {
        return "{\"endpoint\":\"http://127.0.0.1:9/x\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"dedup_id\":\"" + dedupId
                + "\"}";
    }

    /** A check with the orchestrator's timeout: its answer, or null when none came in time. */
    static Outcome probe(HttpClient probes, String base, String path) throws Exception {
        try {
            return call(probes, base, "GET", path, null, HEALTH_TIMEOUT);
        } catch (java.net.http.HttpTimeoutException e) {
            return null;
        }
    }

    static Outcome call(HttpClient http, String base, String method, String path, String body, Duration timeout)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(timeout)
                .header("Authorization", "Bearer " + KEY)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        String code = "";
        if (r.statusCode() >= 400) {
            JsonNode n = JSON.readTree(r.body());
            code = n.at("/error/code").asText();
        }
        return new Outcome(r.statusCode(), r.headers().firstValue("Retry-After").orElse(null), code);
    }
}
