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
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A body over the ingest limit (1 MiB) sent to {@code POST /in/{source_id}}, however it is framed and however far
 * over it is (past the HTTP layer's own ceiling too), is a 413 {@code body_too_large} naming the ingest limit: not the
 * 256 KiB of the API's JSON routes, not a 400.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IngestBodyLimitTest {
    @TempDir
    static Path dir;

    ContractServer node;
    String sourceId;

    @BeforeAll
    void start() {
        node = ContractServer.start(TestStores.sqlite(dir, Clock.systemUTC()), dir, true);
        var created = node.api.call(
                "POST",
                "/v1/sources",
                ContractServer.TEST_KEY,
                "{\"name\":\"big\",\"verify\":{\"scheme\":\"github\",\"secret\":\"gh\"},"
                        + "\"destination\":\"http://127.0.0.1:9/x\"}");
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        sourceId = created.json().get("id").asText();
    }

    @AfterAll
    void stop() {
        if (node != null) node.close();
    }

    @ParameterizedTest(name = "{0} MiB, {1}")
    @CsvSource({"2, chunked", "3, chunked", "20, chunked", "20, length", "3, length"})
    void aBodyOverTheIngestLimitIs413NamingIt(int mib, String framing) throws Exception {
        boolean chunked = framing.equals("chunked");
        String head = "POST /in/" + sourceId + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "X-Hub-Signature-256: sha256=" + "00".repeat(32) + "\r\n"
                + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + mib * 1024L * 1024 + "\r\n")
                + "Connection: close\r\n\r\n";
        JsonNode error = answer(head, mib, chunked);
        assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.at("/error/code").asText()).isEqualTo("body_too_large");
        assertThat(error.at("/error/message").asText()).as(error.toString()).contains("ingest limit of 1 MiB");
        assertThat(node.api
                        .call("GET", "/v1/deliveries?source_id=" + sourceId, ContractServer.TEST_KEY, null)
                        .json()
                        .get("data"))
                .isEmpty();
    }

    /** Sends {@code head} and then {@code mib} MiB of body (until the server stops reading); returns the 413's JSON. */
    private JsonNode answer(String head, int mib, boolean chunked) throws Exception {
        try (Socket s = new Socket("127.0.0.1", node.server.port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                byte[] chunk = new byte[64 * 1024];
                Arrays.fill(chunk, (byte) 'x');
                try {
                    out.write(head.getBytes(StandardCharsets.US_ASCII));
                    for (int i = 0; i < mib * 16; i++) {
                        if (chunked) out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes());
                        out.write(chunk);
                        if (chunked) out.write("\r\n".getBytes());
                    }
                    if (chunked) out.write("0\r\n\r\n".getBytes());
                    out.flush();
                } catch (IOException closedByTheServer) {
                    // it answered before reading everything: what the test is about
                }
            });
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            try {
                in.transferTo(all);
            } catch (IOException reset) {
                // a reset after the answer (the rest of the body was not read)
            }
            writing.get();
            String text = all.toString(StandardCharsets.UTF_8);
            int split = text.indexOf("\r\n\r\n");
            assertThat(split).as("an answer: %s", text).isPositive();
            assertThat(text).as(text).startsWith("HTTP/1.1 413 ");
            String body = text.substring(split + 4);
            if (text.substring(0, split).toLowerCase().contains("transfer-encoding: chunked")) body = unchunk(body);
            return ApiClientForTests.JSON.readTree(body);
        }
    }

    private static String unchunk(String body) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, eol).trim(), 16);
            if (size == 0) return out.toString();
            out.append(body, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }
}
