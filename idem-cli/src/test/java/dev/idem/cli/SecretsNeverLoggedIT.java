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
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node as users run it, its log at DEBUG in the JSON format (every MDC field too), is made to handle every kind of
 * secret: signing secrets revealed and rotated, source secrets given, rotated and checked (good and forged events),
 * endpoint secrets given, revealed and rotated, bad input around secrets, deliveries that succeed and one that dies,
 * and a restart with a wrong master key. No secret, and no master key, is then in its whole output, nor in the answers
 * to bad input or {@code /metrics}, in any of the forms a leak takes: as is, base64 or hex (of the text, and of the key
 * bytes a {@code whsec_} secret or a master key stands for).
 */
class SecretsNeverLoggedIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk_test_neverlogged_0123456789";

    /** Nodes start slowly on a loaded 2-core machine (they wait for no one else's work). */
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);

    @TempDir
    Path dir;

    private final SecureRandom random = new SecureRandom();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<NodeProcess> started = new ArrayList<>();
    private final Set<String> secrets = new LinkedHashSet<>();
    private final List<String> answers = new ArrayList<>();
    private SignedReceiver receiver;
    private int port;

    @AfterEach
    void stop() {
        started.forEach(NodeProcess::close);
        if (receiver != null) receiver.close();
    }

    @Test
    void noSecretIsInTheLogTheMetricsOrAnErrorInAnyEncoding() throws Exception {
        receiver = new SignedReceiver();
        Path data = dir.resolve("data");
        NodeProcess node = serve(data, Map.of());

        String signing =
                json(call("GET", "/v1/signing-secret", null), 200).get("secret").asText();
        secrets.add(signing);
        for (int i = 0; i < 2; i++)
            secrets.add(json(call("POST", "/v1/signing-secret/rotate", "{}"), 200)
                    .get("secret")
                    .asText());

        String hmacSecret = "hmac-" + hex(16);
        secrets.add(hmacSecret);
        String source = json(
                        call(
                                "POST",
                                "/v1/sources",
                                "{\"name\":\"shop\",\"verify\":{\"scheme\":\"hmac_sha256\",\"secret\":\"" + hmacSecret
                                        + "\",\"header\":\"X-Sig\"},\"destination\":\"" + receiver.url("/src")
                                        + "\",\"dedup\":\"header:X-Event-Id\"}"),
                        201)
                .get("id")
                .asText();
        String whsecSource = whsec(32);
        secrets.add(whsecSource);
        json(
                call(
                        "POST",
                        "/v1/sources",
                        "{\"name\":\"sw\",\"verify\":{\"scheme\":\"standard_webhooks\",\"secret\":\"" + whsecSource
                                + "\"},\"destination\":\"" + receiver.url("/sw") + "\"}"),
                201);
        String rotatedHmac = "hmac-" + hex(16);
        secrets.add(rotatedHmac);
        json(call("PATCH", "/v1/sources/" + source, "{\"verify\":{\"secret\":\"" + rotatedHmac + "\"}}"), 200);
        assertThat(ingest(source, rotatedHmac, "evt_good").statusCode()).isEqualTo(200);
        assertThat(ingest(source, "forged-" + hex(8), "evt_forged").statusCode())
                .isEqualTo(403);

        String app = json(call("POST", "/v1/applications", "{\"name\":\"acme\"}"), 201)
                .get("id")
                .asText();
        String given = whsec(32);
        secrets.add(given);
        String endpoint = json(
                        call(
                                "POST",
                                "/v1/endpoints",
                                "{\"url\":\"" + receiver.url("/ep") + "\",\"application\":\"" + app + "\",\"secret\":\""
                                        + given + "\"}"),
                        201)
                .get("id")
                .asText();
        assertThat(json(call("GET", "/v1/endpoints/" + endpoint + "/secret", null), 200)
                        .get("secret")
                        .asText())
                .isEqualTo(given);
        secrets.add(json(call("POST", "/v1/endpoints/" + endpoint + "/secret/rotate", "{}"), 200)
                .get("secret")
                .asText());

        // bad input around secrets: refused, and the refusal does not echo what was given
        String tooShort = whsec(8);
        String notBase64 = "whsec_" + hex(20) + "!!";
        String badSourceSecret = "bad-" + hex(12);
        secrets.addAll(List.of(tooShort, notBase64, badSourceSecret));
        bad("POST", "/v1/endpoints", "{\"url\":\"" + receiver.url("/ep") + "\",\"secret\":\"" + tooShort + "\"}");
        bad("POST", "/v1/endpoints/" + endpoint + "/secret/rotate", "{\"secret\":\"" + notBase64 + "\"}");
        bad(
                "POST",
                "/v1/sources",
                "{\"name\":\"x\",\"verify\":{\"scheme\":\"standard_webhooks\",\"secret\":\"" + badSourceSecret
                        + "\"},\"destination\":\"" + receiver.url("/x") + "\"}");
        bad(
                "PATCH",
                "/v1/sources/" + source,
                "{\"verify\":{\"secret\":\"" + badSourceSecret + "\",\"encoding\":\"rot13\"}}");

        // deliveries: one that arrives, one whose only attempt fails and dies
        json(call("POST", "/v1/schedules", "{\"endpoint\":\"" + receiver.url("/ok") + "\"}"), 201);
        String dies = json(
                        call(
                                "POST",
                                "/v1/schedules",
                                "{\"endpoint\":\"http://127.0.0.1:" + NodeProcess.freePort()
                                        + "/closed\",\"retry\":{\"max_attempts\":1}}"),
                        201)
                .get("id")
                .asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> receiver.countByPath().containsKey("/ok")
                        && receiver.countByPath().containsKey("/src"));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> json(call("GET", "/v1/deliveries?status=dead", null), 200)
                        .toString()
                        .contains(dies));
        answers.add(call("GET", "/metrics", null).body());
        node.stop();

        // a wrong master key: refused at start, naming ids, never a key
        String wrongKey = Base64.getEncoder().encodeToString(bytes(32));
        secrets.add(wrongKey);
        NodeProcess wrong = NodeProcess.start(
                command(data), dir.resolve("logs"), port, KEY, Map.of("IDEM_MASTER_KEY", wrongKey), dir);
        started.add(wrong);
        assertThat(wrong.process.waitFor(90, java.util.concurrent.TimeUnit.SECONDS))
                .isTrue();
        assertThat(wrong.process.exitValue()).isEqualTo(2);
        assertThat(Files.readString(wrong.stderr)).contains("lacks key id");

        for (JsonNode k :
                JSON.readTree(data.resolve("master-keys.json").toFile()).get("keys"))
            secrets.add(k.get("key").asText());

        StringBuilder everything = new StringBuilder();
        for (NodeProcess p : started)
            everything.append(Files.readString(p.stdout)).append(Files.readString(p.stderr));
        String log = everything.toString();
        assertThat(log).as("the node's own log was captured").contains("\"level\":\"DEBUG\"", source, dies);
        String all = log + String.join("\n", answers);
        for (String secret : secrets)
            for (String form : forms(secret))
                assertThat(all).as("a form of a secret").doesNotContainIgnoringCase(form);
    }

    /** The secret as is, base64 and hex of its text, and base64 and hex of the key bytes it stands for. */
    private static List<String> forms(String secret) {
        List<String> out = new ArrayList<>();
        byte[] text = secret.getBytes(StandardCharsets.UTF_8);
        out.add(secret);
        out.add(Base64.getEncoder().withoutPadding().encodeToString(text));
        out.add(HexFormat.of().formatHex(text));
        String b64 = secret.startsWith("whsec_") ? secret.substring("whsec_".length()) : secret;
        try {
            byte[] key = Base64.getDecoder().decode(b64);
            out.add(Base64.getEncoder().withoutPadding().encodeToString(key));
            out.add(Base64.getUrlEncoder().withoutPadding().encodeToString(key));
            out.add(HexFormat.of().formatHex(key));
        } catch (IllegalArgumentException notBase64) {
            // a secret that is not base64 stands for no other bytes
        }
        return out;
    }

    private NodeProcess serve(Path data, Map<String, String> env) throws Exception {
        port = NodeProcess.freePort();
        Map<String, String> all = new java.util.HashMap<>(env);
        all.put("IDEM_LOG_LEVEL", "DEBUG");
        all.put("IDEM_LOG_FORMAT", "json");
        NodeProcess node = NodeProcess.start(command(data), dir.resolve("logs"), port, KEY, all, dir);
        started.add(node);
        return node.awaitReady(READY_WITHIN);
    }

    private List<String> command(Path data) {
        return NodeProcess.javaCommand(
                "-Xmx256m",
                "-jar",
                NodeProcess.JAR.toAbsolutePath().toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--data-dir",
                data.toString(),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints",
                "--rate-limit",
                "0");
    }

    private HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
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

    private void bad(String method, String path, String body) throws Exception {
        HttpResponse<String> r = call(method, path, body);
        assertThat(r.statusCode()).as(body + " → " + r.body()).isEqualTo(400);
        answers.add(r.body());
    }

    private HttpResponse<String> ingest(String source, String secret, String event) throws Exception {
        byte[] body = ("{\"event\":\"" + event + "\"}").getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/in/" + source))
                        .header("X-Sig", SignedReceiver.hmacHex(secret, body))
                        .header("X-Event-Id", event)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        answers.add(r.body());
        return r;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private String hex(int n) {
        return HexFormat.of().formatHex(bytes(n));
    }

    private String whsec(int n) {
        return "whsec_" + Base64.getEncoder().encodeToString(bytes(n));
    }
}
