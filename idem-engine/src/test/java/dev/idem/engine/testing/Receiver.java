package dev.idem.engine.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP receiver on loopback (the JDK's server). Records every request and answers as the test's
 * responder says; tracks how many requests of one {@code webhook-id} are in flight at once.
 */
public final class Receiver implements AutoCloseable {
    /** A request as it arrived; header names lower-case. */
    public record Request(
            String path, Map<String, String> headers, byte[] body, long arrivedNanos, long arrivedMillis) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public String id() {
            return header("webhook-id");
        }

        public int attempt() {
            return Integer.parseInt(header("Idem-Attempt"));
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** What to answer, after {@code delay}. */
    public record Reply(int status, Map<String, String> headers, String body, Duration delay) {
        public static Reply status(int status) {
            return new Reply(status, Map.of(), "", Duration.ZERO);
        }

        public static Reply ok() {
            return new Reply(200, Map.of(), "{\"ok\":true}", Duration.ZERO);
        }

        public Reply withHeader(String name, String value) {
            Map<String, String> h = new java.util.HashMap<>(headers);
            h.put(name, value);
            return new Reply(status, h, body, delay);
        }

        public Reply after(Duration d) {
            return new Reply(status, headers, body, d);
        }

        public Reply withBody(String b) {
            return new Reply(status, headers, b, delay);
        }
    }

    static {
        // the JDK server writes headers and body separately; without TCP_NODELAY, Nagle and delayed ACKs add 40 ms
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // the JDK server closes kept-alive connections beyond 200 idle ones as soon as they fall idle, racing the
        // client's reuse of them (a failed attempt, retried by the policy): not what these tests are about
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-receiver");
        t.setDaemon(true);
        return t;
    });
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final AtomicInteger maxInFlightPerId = new AtomicInteger();
    private volatile Function<Request, Reply> responder;

    public Receiver(Function<Request, Reply> responder) throws IOException {
        this.responder = responder;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public static Receiver ok() throws IOException {
        return new Receiver(r -> Reply.ok());
    }

    public void respond(Function<Request, Reply> r) {
        this.responder = r;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public List<Request> requests() {
        return new ArrayList<>(requests);
    }

    public List<Request> requestsFor(String deliveryId) {
        return requests.stream().filter(r -> deliveryId.equals(r.id())).toList();
    }

    /** The most requests of one delivery that were ever in flight at the same time. */
    public int maxInFlightPerDelivery() {
        return maxInFlightPerId.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        }
        Map<String, String> headers = new java.util.HashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        Request req = new Request(
                ex.getRequestURI().getPath(), Map.copyOf(headers), body, System.nanoTime(), System.currentTimeMillis());
        String id = req.id() == null ? "?" : req.id();
        AtomicInteger n = inFlight.computeIfAbsent(id, k -> new AtomicInteger());
        maxInFlightPerId.accumulateAndGet(n.incrementAndGet(), Math::max);
        requests.add(req);
        try {
            Reply reply = responder.apply(req);
            if (!reply.delay().isZero()) Thread.sleep(reply.delay().toMillis());
            reply.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            byte[] out = reply.body().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(reply.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0)
                try (OutputStream os = ex.getResponseBody()) {
                    os.write(out);
                }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            n.decrementAndGet();
            ex.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
