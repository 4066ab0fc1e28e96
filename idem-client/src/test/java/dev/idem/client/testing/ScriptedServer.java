package dev.idem.client.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback HTTP server that answers each request with the next scripted answer (the last one repeats), and
 * records what it received. An answer with status 0 closes the connection without a byte.
 */
public final class ScriptedServer implements AutoCloseable {
    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();
    private volatile Answer last = new Answer(200, "{}", Map.of());
    private final List<Received> received = new CopyOnWriteArrayList<>();

    /** A scripted answer. */
    public record Answer(int status, String body, Map<String, String> headers) {
        public static Answer of(int status, String body, String... headerPairs) {
            Map<String, String> h = new java.util.LinkedHashMap<>();
            for (int i = 0; i + 1 < headerPairs.length; i += 2) h.put(headerPairs[i], headerPairs[i + 1]);
            return new Answer(status, body, h);
        }

        public static Answer error(int status, String type, String code, String... headerPairs) {
            return of(
                    status,
                    "{\"error\":{\"type\":\"" + type + "\",\"code\":\"" + code + "\",\"message\":\"scripted " + code
                            + "\",\"param\":null,\"request_id\":\"req_scripted_" + code + "\"}}",
                    headerPairs);
        }

        /** No answer: the connection is closed. */
        public static Answer hangUp() {
            return new Answer(0, "", Map.of());
        }
    }

    /** A request as received. */
    public record Received(
            String method,
            String path,
            String idempotencyKey,
            String authorization,
            String body,
            Map<String, List<String>> headers) {
        /** A header's first value by name, any case; null when absent. */
        public String header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0))
                    .findFirst()
                    .orElse(null);
        }
    }

    public ScriptedServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            received.add(new Received(
                    ex.getRequestMethod(),
                    ex.getRequestURI().toString(),
                    ex.getRequestHeaders().getFirst("Idempotency-Key"),
                    ex.getRequestHeaders().getFirst("Authorization"),
                    new String(body, StandardCharsets.UTF_8),
                    Map.copyOf(ex.getRequestHeaders())));
            Answer a = script.poll();
            if (a == null) a = last;
            else last = a;
            if (a.status() == 0) {
                ex.close();
                throw new IOException("hanging up on purpose");
            }
            a.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            ex.getResponseHeaders().add("Content-Type", "application/json");
            byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(a.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
    }

    public ScriptedServer then(Answer... answers) {
        script.addAll(List.of(answers));
        return this;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
