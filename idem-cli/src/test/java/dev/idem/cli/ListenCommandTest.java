package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.SigningSecret;
import dev.idem.wire.WebhookSigner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ListenCommandTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final HttpClient http = HttpClient.newHttpClient();

    /** One {@code idem listen} in this JVM, with its printed lines captured. */
    static final class Listener implements AutoCloseable {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final ListenServer running;

        Listener(String... args) throws Exception {
            ListenCommand cmd = new ListenCommand();
            CommandLine cl = new CommandLine(cmd)
                    .setCaseInsensitiveEnumValuesAllowed(true)
                    .setOut(new PrintWriter(out))
                    .setErr(new PrintWriter(err));
            List<String> all = new ArrayList<>(List.of("--port", "0"));
            all.addAll(Arrays.asList(args));
            cl.parseArgs(all.toArray(String[]::new));
            running = cmd.start();
        }

        List<String> lines() {
            synchronized (out) {
                return out.toString().lines().toList();
            }
        }

        HttpResponse<String> post(String path, Map<String, String> headers, String body) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + running.port() + path))
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            headers.forEach(b::header);
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> signed(String id, int attempt, String body) throws Exception {
            long ts = Instant.now().getEpochSecond();
            return post(
                    "/any/path",
                    Map.of(
                            "webhook-id",
                            id,
                            "webhook-timestamp",
                            Long.toString(ts),
                            "webhook-signature",
                            WebhookSigner.sign(
                                    SigningSecret.parse(SECRET), id, ts, body.getBytes(StandardCharsets.UTF_8)),
                            "Idempotency-Key",
                            "key-" + id,
                            "Idem-Attempt",
                            Integer.toString(attempt)),
                    body);
        }

        @Override
        public void close() {
            running.close();
        }
    }

    @Test
    void helpListsEveryOptionOfTheSpec() {
        StringWriter out = new StringWriter();
        int code = new CommandLine(new ListenCommand())
                .setOut(new PrintWriter(out))
                .execute("--help");
        assertThat(code).isZero();
        assertThat(out.toString())
                .contains(
                        "--port",
                        "--secret",
                        "--inbox",
                        "--fail-rate",
                        "--print",
                        "--forward-to",
                        "PROCESSED|DUPLICATE|REJECTED");
    }

    @Test
    void leaseDurationsReadAsEverywhereElseSo2dIsTwoDays() throws Exception {
        try (Listener l = new Listener("--lease", "2d")) {
            assertThat(l.running.inbox().defaultLease()).isEqualTo(java.time.Duration.ofDays(2));
        }
        try (Listener l = new Listener("--lease", "PT90M")) {
            assertThat(l.running.inbox().defaultLease()).isEqualTo(java.time.Duration.ofMinutes(90));
        }
    }

    @Test
    void aLeaseThatIsNotADurationIsBadUsage() {
        StringWriter err = new StringWriter();
        int code = IdemCommand.commandLine()
                .setErr(new PrintWriter(err))
                .execute("listen", "--port", "0", "--lease", "2x");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--lease", "'2x' is not a duration").doesNotContain("\tat ");
    }

    @Test
    void anInboxThatCannotBeReachedIsBadUsageInOneLine() {
        StringWriter err = new StringWriter();
        int code = IdemCommand.commandLine()
                .setErr(new PrintWriter(err))
                .execute("listen", "--port", "0", "--inbox", "jdbc:postgresql://127.0.0.1:1/nothing?connectTimeout=2");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString())
                .contains("--inbox jdbc:postgresql://127.0.0.1:1/nothing", "cannot connect")
                .doesNotContain("\tat ");
    }

    @Test
    void aFailRateOutsideZeroToOneIsRefused() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new ListenCommand())
                .setErr(new PrintWriter(err))
                .execute("--port", "0", "--fail-rate", "1.5");
        assertThat(code).isNotZero();
        assertThat(err.toString()).contains("--fail-rate must be between 0 and 1");
    }

    @Test
    void printsProcessedThenDuplicateForTheSameKeyOnAnyPath() throws Exception {
        try (Listener l = new Listener("--secret", SECRET)) {
            String id = "dlv_" + UUID.randomUUID();
            assertThat(l.signed(id, 1, "{\"a\":1}").statusCode()).isEqualTo(200);
            assertThat(l.signed(id, 2, "{\"a\":1}").statusCode()).isEqualTo(200);
            assertThat(l.lines()).containsExactly("PROCESSED key-" + id + " 1", "DUPLICATE key-" + id + " 2");
        }
    }

    @Test
    void aBadSignatureIsRejectedWith403() throws Exception {
        try (Listener l = new Listener("--secret", SECRET)) {
            long ts = Instant.now().getEpochSecond();
            var r = l.post(
                    "/hook",
                    Map.of(
                            "webhook-id",
                            "dlv_x",
                            "webhook-timestamp",
                            Long.toString(ts),
                            "webhook-signature",
                            "v1,Zm9yZ2VkIHNpZ25hdHVyZSBvZiAzMiBieXRlcyEhISE=",
                            "Idem-Attempt",
                            "3"),
                    "{}");
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("BAD_SIGNATURE");
            assertThat(l.lines()).containsExactly("REJECTED dlv_x 3");
        }
    }

    @Test
    void withoutASecretRequestsAreAcceptedAndKeyedByTheBodyHash() throws Exception {
        try (Listener l = new Listener()) {
            assertThat(l.post("/", Map.of(), "hello").statusCode()).isEqualTo(200);
            assertThat(l.post("/", Map.of(), "hello").statusCode()).isEqualTo(200);
            assertThat(l.lines()).hasSize(2);
            assertThat(l.lines().get(0)).matches("PROCESSED body_[0-9a-f]{64} -");
            assertThat(l.lines().get(1)).startsWith("DUPLICATE body_");
        }
    }

    @Test
    void failRateAnswers500AndTheRetryOfThatKeyIsProcessedOnce() throws Exception {
        try (Listener l = new Listener("--secret", SECRET, "--fail-rate", "0.5", "--seed", "7")) {
            int keys = 40;
            int fivehundreds = 0;
            for (int k = 0; k < keys; k++) {
                String id = "dlv_fail_" + k + "_" + UUID.randomUUID();
                for (int attempt = 1; ; attempt++) {
                    int status = l.signed(id, attempt, "{}").statusCode();
                    if (status == 200) break;
                    assertThat(status).isEqualTo(500);
                    fivehundreds++;
                }
                assertThat(l.signed(id, 99, "{}").statusCode()).isEqualTo(200);
            }
            assertThat(fivehundreds).isBetween(10, 70);
            Map<String, Long> words =
                    l.lines().stream().collect(Collectors.groupingBy(s -> s.split(" ")[0], Collectors.counting()));
            assertThat(words)
                    .containsEntry("PROCESSED", (long) keys)
                    .containsEntry("DUPLICATE", (long) keys)
                    .containsEntry("REJECTED", (long) fivehundreds);
        }
    }

    /** The application a developer is writing, on loopback: records what it gets, answers as told. */
    static final class App implements AutoCloseable {
        final com.sun.net.httpserver.HttpServer server;
        final List<Map<String, String>> headers = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> bodies = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile int status = 200;

        App() throws java.io.IOException {
            server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", ex -> {
                Map<String, String> h = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                ex.getRequestHeaders().forEach((k, v) -> h.put(k, v.get(0)));
                h.put(":path", ex.getRequestURI().getPath());
                headers.add(h);
                bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                byte[] answer = ("{\"app\":\"answer " + status + "\"}").getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.getResponseHeaders().set("X-App", "mine");
                ex.sendResponseHeaders(status, answer.length);
                ex.getResponseBody().write(answer);
                ex.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks";
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    @Test
    void forwardToSendsEachVerifiedFirstSeenRequestToTheAppAndAnswersIdemWithTheAppsAnswer() throws Exception {
        try (App app = new App();
                Listener l = new Listener("--secret", SECRET, "--forward-to", app.url())) {
            String id = "dlv_fwd_" + UUID.randomUUID();
            var first = l.signed(id, 1, "{\"invoice\":\"in_42\"}");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("{\"app\":\"answer 200\"}");
            assertThat(first.headers().firstValue("X-App")).hasValue("mine");
            assertThat(app.bodies).containsExactly("{\"invoice\":\"in_42\"}");
            assertThat(app.headers.get(0))
                    .containsEntry(":path", "/hooks")
                    .containsEntry("webhook-id", id)
                    .containsEntry("Idempotency-Key", "key-" + id)
                    .containsEntry("Idem-Attempt", "1")
                    .containsKey("webhook-signature");

            // a duplicate is answered by listen's inbox, not forwarded
            assertThat(l.signed(id, 2, "{\"invoice\":\"in_42\"}").statusCode()).isEqualTo(200);
            assertThat(app.bodies).hasSize(1);

            // the app fails: Idem gets its answer, and its retry is forwarded again (the claim was released)
            String failing = "dlv_fwd_fail_" + UUID.randomUUID();
            app.status = 500;
            var refused = l.signed(failing, 1, "{}");
            assertThat(refused.statusCode()).isEqualTo(500);
            assertThat(refused.body()).isEqualTo("{\"app\":\"answer 500\"}");
            app.status = 202;
            assertThat(l.signed(failing, 2, "{}").statusCode()).isEqualTo(202);
            assertThat(app.bodies).hasSize(3);

            // a forged request never reaches the app
            assertThat(l.post(
                                    "/hooks",
                                    Map.of(
                                            "webhook-id",
                                            "dlv_forged",
                                            "webhook-timestamp",
                                            "1",
                                            "webhook-signature",
                                            "v1,Zm9yZ2Vk"),
                                    "{}")
                            .statusCode())
                    .isEqualTo(403);
            assertThat(app.bodies).hasSize(3);
            assertThat(l.lines())
                    .containsExactly(
                            "PROCESSED key-" + id + " 1 -> 200",
                            "DUPLICATE key-" + id + " 2",
                            "REJECTED key-" + failing + " 1 -> 500",
                            "PROCESSED key-" + failing + " 2 -> 202",
                            "REJECTED dlv_forged -");
        }
    }

    @Test
    void anAppThatDoesNotAnswerIs502AndTheRetryIsForwardedOnceItIsUp() throws Exception {
        App app = new App();
        String url = app.url();
        app.close(); // nothing listens there now
        try (Listener l = new Listener("--secret", SECRET, "--forward-to", url)) {
            String id = "dlv_down_" + UUID.randomUUID();
            var r = l.signed(id, 1, "{}");
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.body()).contains("APP_UNREACHABLE", url);
            assertThat(l.lines()).containsExactly("REJECTED key-" + id + " 1 -> unreachable");
            assertThat(l.err.toString()).contains("key-" + id + ": " + url + " did not answer");
        }
    }

    @Test
    void printShowsTheHeadersAndTheBodyUnderEachLine() throws Exception {
        try (Listener l = new Listener("--secret", SECRET, "--print", "all")) {
            String id = "dlv_print_" + UUID.randomUUID();
            l.signed(id, 1, "{\"a\":1}\n{\"b\":2}");
            List<String> lines = l.lines();
            assertThat(lines.get(0)).isEqualTo("PROCESSED key-" + id + " 1");
            assertThat(lines)
                    .contains("  webhook-id: " + id, "  idempotency-key: key-" + id, "  idem-attempt: 1")
                    .anyMatch(x -> x.startsWith("  webhook-signature: v1,"))
                    .endsWith("  {\"a\":1}", "  {\"b\":2}");
        }
        try (Listener l = new Listener("--print", "body")) {
            l.post("/", Map.of(), "hello");
            assertThat(l.lines()).hasSize(2);
            assertThat(l.lines().get(1)).isEqualTo("  hello");
        }
    }

    @Test
    void aForwardTargetThatIsNotAnHttpUrlIsBadUsage() {
        StringWriter err = new StringWriter();
        int code = IdemCommand.commandLine()
                .setErr(new PrintWriter(err))
                .execute("listen", "--port", "0", "--forward-to", "localhost:3000/hooks");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--forward-to must be your application's http:// URL");
    }

    @Test
    void twoListenersOnOneSqliteInboxAreReplicasThatProcessEachKeyOnce(@TempDir Path dir) throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("listen.db") + "?journal_mode=WAL&busy_timeout=30000";
        assertReplicas(
                new Listener("--secret", SECRET, "--inbox", url), new Listener("--secret", SECRET, "--inbox", url));
    }

    @Test
    void twoListenersOnOneRedisInboxAreReplicasThatProcessEachKeyOnce() throws Exception {
        assertReplicas(
                new Listener("--secret", SECRET, "--inbox", "redis://127.0.0.1:6379"),
                new Listener("--secret", SECRET, "--inbox", "redis://127.0.0.1:6379"));
    }

    private static void assertReplicas(Listener a, Listener b) throws Exception {
        try (a;
                b) {
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 200; i++) ids.add("dlv_" + run + "_" + i);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<Integer>> sent = new ArrayList<>();
            for (String id : ids) {
                // each delivery goes to both replicas at once, as a load balancer retrying on another node might
                for (Listener l : List.of(a, b)) {
                    sent.add(pool.submit(() -> {
                        for (int attempt = 1; ; attempt++) {
                            int s = l.signed(id, attempt, "{}").statusCode();
                            if (s == 200) return s;
                            Thread.sleep(20);
                        }
                    }));
                }
            }
            for (Future<Integer> f : sent) assertThat(f.get()).isEqualTo(200);
            pool.shutdown();
            List<String> all = new ArrayList<>(a.lines());
            all.addAll(b.lines());
            Function<String, Long> count =
                    word -> all.stream().filter(s -> s.startsWith(word + " ")).count();
            Map<String, Long> processedPerKey = all.stream()
                    .filter(s -> s.startsWith("PROCESSED "))
                    .collect(Collectors.groupingBy(s -> s.split(" ")[1], Collectors.counting()));
            assertThat(processedPerKey).hasSize(ids.size());
            assertThat(processedPerKey.values()).allMatch(n -> n == 1);
            assertThat(count.apply("DUPLICATE")).isEqualTo(ids.size());
        }
    }
}
