package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Traffic for master key rotation tests: {@code idem serve} nodes on one PostgreSQL database, each started with a
 * keyset file of the test's choosing, and the work they keep doing meanwhile: schedules delivered to a
 * {@link SignedReceiver}, provider events ingested by a source and forwarded there, signing and source secrets rotated.
 * It remembers every signing secret it was shown and every delivery it expects, so a test can check that each one
 * arrived once and verifies.
 */
final class RotationTraffic implements AutoCloseable {
    static final String KEY = "sk_test_rotation_0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    final SignedReceiver receiver;
    private final Path dir;
    private final String databaseUrl;
    private final String databaseUser;
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<NodeProcess> started = new ArrayList<>();
    /** Every signing secret any node revealed or rotated to, newest last. */
    final List<String> signingSecrets = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Payload marks of the schedules created, and of the events ingested, that must each arrive once. */
    final Set<String> expected = ConcurrentHashMap.newKeySet();

    private final AtomicInteger sequence = new AtomicInteger();
    private volatile String source;
    private volatile String sourceSecret;

    RotationTraffic(Path dir, String databaseUrl, String databaseUser) throws Exception {
        this.dir = dir;
        this.databaseUrl = databaseUrl;
        this.databaseUser = databaseUser;
        this.receiver = new SignedReceiver();
    }

    /** Starts {@code idem serve} on the database with this keyset file (does not wait until it is ready). */
    NodeProcess serve(Path keyset) throws Exception {
        int port = NodeProcess.freePort();
        List<String> command = NodeProcess.javaCommand(
                "-Xmx256m",
                "-jar",
                NodeProcess.JAR.toAbsolutePath().toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--database-url",
                databaseUrl,
                "--master-key-file",
                keyset.toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints",
                "--rate-limit",
                "0");
        NodeProcess node = NodeProcess.start(
                command, dir.resolve("logs"), port, KEY, Map.of("IDEM_DATABASE_USER", databaseUser), dir);
        started.add(node);
        return node;
    }

    /** SIGTERM, and the node's exit: 143, the JVM's answer to SIGTERM after its shutdown hooks ran. */
    static void stop(NodeProcess node) throws Exception {
        assertThat(node.stop()).as("exit code after SIGTERM").isEqualTo(143);
    }

    /** Reads the signing secret through {@code node} and makes a source forwarding to the receiver. */
    void setUp(NodeProcess node) throws Exception {
        signingSecrets.add(revealSigningSecret(node));
        sourceSecret = "provider-" + sequence.incrementAndGet() + "-" + System.nanoTime();
        source = json(
                        call(
                                node,
                                "POST",
                                "/v1/sources",
                                "{\"name\":\"shop\",\"verify\":{\"scheme\":\"hmac_sha256\",\"secret\":\""
                                        + sourceSecret + "\",\"header\":\"X-Sig\"},\"destination\":\""
                                        + receiver.url("/src") + "\"}"),
                        201)
                .get("id")
                .asText();
    }

    /** One schedule due now and one provider event, both through {@code node}, each marked {@code <phase>-<n>}. */
    void work(NodeProcess node, String phase) throws Exception {
        schedule(node, phase);
        HttpResponse<String> in = ingest(node, phase);
        assertThat(in.statusCode())
                .as("ingest through port %d: %s", node.port, in.body())
                .isEqualTo(200);
    }

    private void schedule(NodeProcess node, String phase) throws Exception {
        String mark = phase + "-" + sequence.incrementAndGet();
        json(
                call(
                        node,
                        "POST",
                        "/v1/schedules",
                        "{\"endpoint\":\"" + receiver.url("/s") + "\",\"payload\":{\"mark\":\"" + mark + "\"}}"),
                201);
        expected.add(mark);
    }

    /** A provider event signed with the source's current secret; expected to arrive when accepted. */
    private HttpResponse<String> ingest(NodeProcess node, String phase) throws Exception {
        String event = phase + "-" + sequence.incrementAndGet();
        byte[] body = ("{\"mark\":\"" + event + "\"}").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> in = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port + "/in/" + source))
                        .header("X-Sig", SignedReceiver.hmacHex(sourceSecret, body))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (in.statusCode() == 200) expected.add(event);
        return in;
    }

    /** Rotates the signing secret through {@code node}. */
    String rotateSigningSecret(NodeProcess node) throws Exception {
        String next = json(call(node, "POST", "/v1/signing-secret/rotate", "{}"), 200)
                .get("secret")
                .asText();
        signingSecrets.add(next);
        return next;
    }

    /**
     * Replaces the source's provider secret through {@code via}; events are signed with the new one from now on. A
     * node keeps a source as it read it for up to 2 s (docs/security.md), so this waits until each of {@code nodes}
     * accepts an event signed with the new secret (every accepted event is expected to arrive like any other).
     */
    void rotateSourceSecret(NodeProcess via, NodeProcess... nodes) throws Exception {
        String next = "provider-" + sequence.incrementAndGet() + "-" + System.nanoTime();
        json(call(via, "PATCH", "/v1/sources/" + source, "{\"verify\":{\"secret\":\"" + next + "\"}}"), 200);
        sourceSecret = next;
        for (NodeProcess node : nodes)
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ingest(node, "source-rotated").statusCode() == 200);
    }

    /**
     * Schedules through {@code node} until one arrives signed with {@code secret}: a node signs with a rotation's new
     * secret within a second (its opened secrets are cached that long), so this proves the node opened that secret.
     */
    void awaitSignedWith(NodeProcess node, String secret, String phase) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            schedule(node, phase);
            return hitsOf(phase).stream().anyMatch(h -> SignedReceiver.signedByOneOf(h, List.of(secret)));
        });
    }

    String revealSigningSecret(NodeProcess node) throws Exception {
        return json(call(node, "GET", "/v1/signing-secret", null), 200)
                .get("secret")
                .asText();
    }

    /**
     * Waits until every expected delivery arrived, then checks each arrived exactly once (a failed attempt would show
     * as a retry) and carries a signature by one of the signing secrets the nodes gave out.
     */
    void awaitEveryDeliveryOnceAndVerified() {
        await().atMost(Duration.ofSeconds(60)).until(() -> marks().keySet().containsAll(expected));
        Map<String, Long> marks = marks();
        assertThat(marks.keySet()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(marks.values())
                .as("each delivered once, at its first attempt")
                .containsOnly(1L);
        for (SignedReceiver.Hit hit : receiver.hits())
            assertThat(SignedReceiver.signedByOneOf(hit, signingSecrets))
                    .as("%s %s signed by a secret the nodes gave out", hit.path(), hit.text())
                    .isTrue();
    }

    /** The hits whose mark starts with {@code phase}. */
    List<SignedReceiver.Hit> hitsOf(String phase) {
        return receiver.hits().stream()
                .filter(h -> mark(h).startsWith(phase + "-"))
                .toList();
    }

    private Map<String, Long> marks() {
        return receiver.hits().stream()
                .collect(java.util.stream.Collectors.groupingBy(
                        RotationTraffic::mark, java.util.stream.Collectors.counting()));
    }

    private static String mark(SignedReceiver.Hit hit) {
        try {
            JsonNode body = JSON.readTree(hit.body());
            JsonNode mark = body.findValue("mark");
            return mark == null ? "(none) " + hit.text() : mark.asText();
        } catch (java.io.IOException e) {
            return "(not JSON) " + hit.text();
        }
    }

    JsonNode deadDeliveries(NodeProcess node) throws Exception {
        return json(call(node, "GET", "/v1/deliveries?status=dead", null), 200).get("data");
    }

    private HttpResponse<String> call(NodeProcess node, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port + path))
                .header("Authorization", "Bearer " + KEY);
        if (body != null) b.header("Content-Type", "application/json");
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.readTree(r.body());
    }

    @Override
    public void close() {
        started.forEach(NodeProcess::close);
        receiver.close();
    }
}
