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
        final ListenCommand.Running running;

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
                .contains("--port", "--secret", "--inbox", "--fail-rate", "PROCESSED|DUPLICATE|REJECTED");
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
