package dev.idem.server.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.ApiClientForTests;
import dev.idem.store.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Requests a well-behaved HTTP client would not send (broken escapes, odd methods, lying lengths),
 * written to the socket as raw bytes: never a 5xx, and always the documented error shape with the
 * {@code Request-Id} header, never a bare HTML page, and nothing written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedRequestTest {
    @TempDir
    static Path dir;

    ContractServer node;
    StoreRows rows;

    @BeforeAll
    void start() {
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, true, true, 0);
        rows = new StoreRows(dir);
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
    }

    record Raw(int status, String head, String body) {
        String header(String name) {
            for (String line : head.split("\r\n"))
                if (line.toLowerCase(Locale.ROOT).startsWith(name.toLowerCase(Locale.ROOT) + ":"))
                    return line.substring(name.length() + 1).trim();
            return null;
        }
    }

    Raw send(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", node.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.UTF_8));
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            assertThat(split).as("a response to %s: %s", request, text).isPositive();
            String head = text.substring(0, split);
            int status = Integer.parseInt(head.split(" ")[1]);
            return new Raw(status, head, text.substring(split + 4));
        }
    }

    static final String AUTH = "Authorization: Bearer " + ContractServer.TEST_KEY + "\r\n";

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /v1/schedules?status=%C0%AF HTTP/1.1",
                "GET /v1/schedules/..%2F..%2Fhealthz HTTP/1.1",
                "GET /v1/recurrence/preview?rrule=%FF%FE HTTP/1.1",
                "PUT /v1/schedules HTTP/1.1",
                "POST /v1/schedules/sch_x HTTP/1.1",
                "GET /v1/schedules/sch_x/pause HTTP/1.1",
                "OPTIONS /v1/schedules HTTP/1.1",
                "TRACE /v1/schedules HTTP/1.1",
                "BREW /v1/schedules HTTP/1.1",
            })
    void aMalformedRequestGetsAnErrorInTheSpecShape(String requestLine) throws IOException {
        var before = rows.counts();
        Raw r = send(
                requestLine + "\r\nHost: 127.0.0.1\r\n" + AUTH + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
        assertThat(r.status())
                .as("%s -> %s %s", requestLine, r.head(), r.body())
                .isBetween(400, 499);
        assertSpecError(r, requestLine);
        assertThat(rows.counts()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /v1/schedules?%%%%=1 HTTP/1.1",
                "GET /v1/deliveries?schedule_id=%00 HTTP/1.1",
                "GET /v1/deliveries?schedule_id=%F0%9F%98%80 HTTP/1.1",
                "GET /v1/schedules?limit=5&limit=x HTTP/1.1",
                "HEAD /v1/schedules HTTP/1.1",
                "GET /v1/schedules?starting_after= HTTP/1.1"
            })
    void anOddButDecodableRequestIsNeverA5xx(String requestLine) throws IOException {
        Raw r = send(requestLine + "\r\nHost: 127.0.0.1\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(r.status())
                .as("%s -> %s %s", requestLine, r.head(), r.body())
                .isLessThan(500);
        if (r.status() >= 400 && !requestLine.startsWith("HEAD")) assertSpecError(r, requestLine);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                // the body is shorter than announced: the request never completes; then longer
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH
                        + "Content-Length: 5\r\nConnection: close\r\n\r\n{\"endpoint\":\"http://127.0.0.1/\"}",
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH
                        + "Content-Type: application/json; charset=utf-16\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH
                        + "Idempotency-Key: a\u00e9\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u00e9\u00e9\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                "POST /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH + AUTH
                        + "Content-Length: 2\r\nConnection: close\r\n\r\n{}",
            })
    void aMalformedBodyOrHeaderIsNeverA5xxAndWritesNothing(String request) throws IOException {
        var before = rows.counts();
        Raw r = send(request);
        assertThat(r.status()).as("%s -> %s %s", request, r.head(), r.body()).isLessThan(500);
        if (r.status() >= 400) assertSpecError(r, request);
        assertThat(rows.counts().schedules()).isEqualTo(before.schedules());
    }

    /** A parameter the client sent but whose value cannot be decoded is bad input, not an absent parameter. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /v1/schedules?limit=%zz HTTP/1.1",
                "GET /v1/schedules?limit=%E0%A4%A HTTP/1.1",
                "GET /v1/deliveries?status=%zz HTTP/1.1"
            })
    void aQueryParameterThatCannotBeDecodedIs400(String requestLine) throws IOException {
        Raw r = send(requestLine + "\r\nHost: 127.0.0.1\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(r.status())
                .as("%s -> %s %s", requestLine, r.head(), r.body())
                .isEqualTo(400);
        assertSpecError(r, requestLine);
    }

    /** Jetty refuses these paths before Javalin sees them; the answer must still be the API's JSON error, not Jetty's HTML page. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /v1/schedules/%zz HTTP/1.1",
                "GET /v1/schedules/sch_%00 HTTP/1.1",
                "GET /v1/deliveries/%2 HTTP/1.1"
            })
    void aPathJettyRefusesStillGetsTheSpecErrorShape(String requestLine) throws IOException {
        Raw r = send(requestLine + "\r\nHost: 127.0.0.1\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(r.status())
                .as("%s -> %s %s", requestLine, r.head(), r.body())
                .isBetween(400, 499);
        assertSpecError(r, requestLine);
    }

    /** Requests Jetty refuses before routing (a header block or a URI too large): still the API's JSON error with a Request-Id. */
    @org.junit.jupiter.api.Test
    void whatJettyRefusesBeforeRoutingIsStillInTheSpecShape() throws IOException {
        Raw hugeHeader = send("GET /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH + "X-Big: " + "a".repeat(64 * 1024)
                + "\r\nConnection: close\r\n\r\n");
        assertThat(hugeHeader.status()).as(hugeHeader.head()).isBetween(400, 499);
        assertSpecError(hugeHeader, "a 64 KiB header");
        Raw hugeUri = send("GET /v1/schedules?status=" + "a".repeat(64 * 1024) + " HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Connection: close\r\n\r\n");
        assertThat(hugeUri.status()).as(hugeUri.head()).isBetween(400, 499);
        assertSpecError(hugeUri, "a 64 KiB URI");
        Raw badVersion = send("GET /v1/schedules HTTP/9.9\r\nHost: x\r\n" + AUTH + "Connection: close\r\n\r\n");
        assertThat(badVersion.status()).as(badVersion.head()).isBetween(400, 505);
    }

    /** A chunked body that breaks off is the client's error: 400, not a 500 logged as ours. */
    @org.junit.jupiter.api.Test
    void aBrokenChunkedBodyIs400Not500() throws IOException {
        var before = rows.counts();
        String request = "POST /v1/schedules HTTP/1.1\r\nHost: x\r\n" + AUTH
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n";
        Raw r = send(request);
        assertThat(r.status()).as("%s -> %s", r.head(), r.body()).isEqualTo(400);
        assertSpecError(r, request);
        assertThat(rows.counts().schedules()).isEqualTo(before.schedules());
    }

    /** Over 256 KiB on any mutation, well over it too (past the HTTP layer's own ceiling): 400 body_too_large, nothing written. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {262_145, 600_000, 2_500_000})
    void anOversizedBodyIs400BodyTooLargeOnEveryMutation(int size) throws IOException {
        var before = rows.counts();
        String id = node.api
                .call(
                        "POST",
                        "/v1/schedules",
                        ContractServer.TEST_KEY,
                        "{\"endpoint\":\"http://127.0.0.1:9/x\",\"fire_at\":\"2035-01-01T00:00:00Z\"}")
                .json()
                .get("id")
                .asText();
        String big = "{\"endpoint\":\"http://127.0.0.1:9/x\",\"fire_at\":\"2035-01-01T00:00:00Z\",\"body\":\""
                + "x".repeat(size) + "\"}";
        for (String[] c : new String[][] {
            {"POST", "/v1/schedules"},
            {"PATCH", "/v1/schedules/" + id},
            {"POST", "/v1/schedules/" + id + "/pause"},
            {"DELETE", "/v1/schedules/" + id},
            {"POST", "/v1/signing-secret/rotate"}
        }) {
            ApiClientForTests.Reply r;
            try {
                r = node.api.call(
                        c[0],
                        c[1],
                        ContractServer.TEST_KEY,
                        big,
                        java.util.Map.of("Idempotency-Key", "big-" + size + c[1]));
            } catch (IllegalStateException connectionClosedEarly) {
                throw new AssertionError(c[0] + " " + c[1] + " with " + size + " bytes: no answer ("
                        + connectionClosedEarly.getMessage() + ")");
            }
            assertThat(r.status())
                    .as("%s %s with %d bytes -> %s", c[0], c[1], size, r.raw())
                    .isEqualTo(400);
            assertThat(r.json().at("/error/code").asText()).isEqualTo("body_too_large");
            assertThat(r.json().at("/error/request_id").asText()).isEqualTo(r.header("Request-Id"));
        }
        var after = node.api
                .call("GET", "/v1/schedules/" + id, ContractServer.TEST_KEY, null)
                .json();
        assertThat(after.get("status").asText()).isEqualTo("active");
        assertThat(rows.counts().schedules()).isEqualTo(before.schedules() + 1);
        assertThat(rows.counts().idempotencyRecords()).isEqualTo(before.idempotencyRecords());
    }

    /** Issue 18.9: a path the API has, with a method it does not: 405 naming the methods it has, not a 404 saying the path is unknown. */
    @ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource(
            delimiter = '|',
            value = {
                "PUT|/v1/schedules|GET, HEAD, POST",
                "TRACE|/v1/schedules|GET, HEAD, POST",
                "DELETE|/v1/schedules|GET, HEAD, POST",
                "OPTIONS|/v1/schedules|GET, HEAD, POST",
                "PUT|/v1/schedules/sch_x|GET, HEAD, PATCH, DELETE",
                "POST|/v1/schedules/sch_x|GET, HEAD, PATCH, DELETE",
                "GET|/v1/schedules/sch_x/pause|POST",
                "PATCH|/v1/deliveries/dlv_x|GET, HEAD",
                "TRACE|/v1/signing-secret|GET, HEAD",
                "PUT|/healthz|GET, HEAD"
            })
    void aMethodThePathDoesNotHaveIs405WithAllow(String method, String path, String allow) throws IOException {
        var before = rows.counts();
        Raw r = send(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + AUTH
                + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
        assertThat(r.status())
                .as("%s %s -> %s %s", method, path, r.head(), r.body())
                .isEqualTo(405);
        assertSpecError(r, method + " " + path);
        assertThat(ApiClientForTests.JSON.readTree(r.body()).at("/error/code").asText())
                .isEqualTo("method_not_allowed");
        assertThat(java.util.Arrays.stream(r.header("Allow").split(","))
                        .map(String::trim)
                        .sorted()
                        .toList())
                .isEqualTo(java.util.Arrays.stream(allow.split(","))
                        .map(String::trim)
                        .sorted()
                        .toList());
        assertThat(rows.counts()).isEqualTo(before);
    }

    /** Issue 18.9: an HTTP/0.9 request line (no version) is the client's mistake, never "internal_error". */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GET /v1/schedules\r\n\r\n",
                "GET /healthz\r\n",
                "GET /\r\n\r\n",
                "GET /v1/schedules HTTP/0.9\r\n\r\n"
            })
    void anHttp09RequestGetsAClientErrorInTheSpecShape(String request) throws IOException {
        Raw r = send(request);
        assertThat(r.status())
                .as("%s -> %s %s", request, r.head(), r.body())
                .isBetween(400, 505)
                .isNotIn(500, 501, 502, 503, 504);
        assertSpecError(r, request);
        assertThat(r.body()).doesNotContain("internal_error");
        assertThat(ApiClientForTests.JSON.readTree(r.body()).at("/error/type").asText())
                .isEqualTo("invalid_request_error");
    }

    private static void assertSpecError(Raw r, String what) throws IOException {
        assertThat(r.header("Content-Type")).as("%s -> %s", what, r.head()).startsWith("application/json");
        JsonNode json = ApiClientForTests.JSON.readTree(r.body());
        assertThat(json.at("/error/type").asText())
                .as("%s -> %s", what, r.body())
                .isNotEmpty();
        assertThat(json.at("/error/code").asText()).isNotEmpty();
        assertThat(json.at("/error/message").asText()).isNotEmpty();
        assertThat(json.at("/error/request_id").asText()).startsWith("req_").isEqualTo(r.header("Request-Id"));
    }
}
