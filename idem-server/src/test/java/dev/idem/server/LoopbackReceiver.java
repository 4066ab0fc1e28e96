package dev.idem.server;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** A real HTTP receiver on 127.0.0.1 that records every request and answers with a chosen status. */
public final class LoopbackReceiver implements AutoCloseable {
    public record Received(String path, Map<String, String> headers, byte[] body, Instant at) {
        public String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    private final HttpServer server;
    public final List<Received> requests = new CopyOnWriteArrayList<>();
    public final AtomicInteger status = new AtomicInteger(200);
    /** The response body. */
    public final java.util.concurrent.atomic.AtomicReference<String> answer =
            new java.util.concurrent.atomic.AtomicReference<>("ok");
    /** Headers every response carries besides its body's. */
    public final Map<String, String> responseHeaders = new java.util.concurrent.ConcurrentHashMap<>();

    public LoopbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            Map<String, String> h = new TreeMap<>();
            ex.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
            requests.add(new Received(ex.getRequestURI().getPath(), h, body, Instant.now()));
            byte[] bytes = answer.get().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            responseHeaders.forEach((k, v) -> ex.getResponseHeaders().set(k, v));
            ex.sendResponseHeaders(status.get(), bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        });
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
