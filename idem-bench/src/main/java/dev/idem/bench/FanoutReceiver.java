package dev.idem.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.WebhookHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiver of {@link FanoutRun}: one JDK HTTP server on every local address (so {@code 127.0.0.1},
 * {@code 127.0.0.2}, … are as many hosts of one port), answering 200 at once, except paths under {@code /hang/}, which
 * it reads and never answers until {@link #release()}. A message reaches many endpoints under one {@code webhook-id},
 * so a delivery is counted by ({@code Idem-Endpoint-Id}, {@code webhook-id}): a pair seen twice is a duplicate. One
 * request in {@value Receiver#VERIFY_EVERY} has its signature checked against its endpoint's own secret.
 */
final class FanoutReceiver implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService workers;
    private final HeldRequests held = new HeldRequests(true);
    private volatile Tally tally = new Tally(Map.of());

    /** What arrived since {@link #begin}: at the answered paths, and (counted apart) at the hanging ones. */
    static final class Tally {
        final Map<String, StandardWebhooksVerifier> verifiers;
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong hangingRequests = new AtomicLong();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong badSignatures = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong firstNanos = new AtomicLong(Long.MAX_VALUE);
        /** (message id, arrival in {@link System#nanoTime()}) of each answered request. */
        final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

        Tally(Map<String, StandardWebhooksVerifier> verifiers) {
            this.verifiers = verifiers;
        }

        long unique() {
            return seen.size();
        }
    }

    record Arrival(String messageId, long nanos) {}

    FanoutReceiver() throws IOException {
        // thousands of kept-alive connections: the JDK server would otherwise close those beyond 200 as they fall idle
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        System.setProperty("sun.net.httpserver.nodelay", "true");
        workers = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "fanout-receiver");
            t.setDaemon(true);
            return t;
        });
        server = HttpServer.create(new InetSocketAddress(0), 8192);
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The URL of answered path {@code path} on loopback host {@code 127.0.0.<host>} (1 to 254) or {@code 127.0.x.y}. */
    String url(String host, String path) {
        return "http://" + host + ":" + server.getAddress().getPort() + path;
    }

    /** Starts counting a new run; each endpoint's signatures are checked against its secret. */
    Tally begin(Map<String, SigningSecret> secrets) {
        Map<String, StandardWebhooksVerifier> v = new ConcurrentHashMap<>();
        secrets.forEach((ep, s) -> v.put(
                ep,
                new StandardWebhooksVerifier(
                        List.of(s), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC())));
        Tally t = new Tally(v);
        tally = t;
        return t;
    }

    /** Answers every parked request now, and every later one at once. */
    void release() {
        held.release();
    }

    /** Hangs {@code /hang/} paths again (after a {@link #release()}). */
    void hangAgain() {
        held.hangAgain();
    }

    private void handle(HttpExchange ex) throws IOException {
        long now = System.nanoTime();
        byte[] body;
        try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
        } catch (IOException e) {
            ex.close();
            throw e;
        }
        Tally t = tally;
        var h = ex.getRequestHeaders();
        String messageId = h.getFirst("webhook-id");
        String endpoint = h.getFirst(WebhookHeaders.ENDPOINT_ID);
        if (ex.getRequestURI().getPath().startsWith("/hang/")) {
            t.hangingRequests.incrementAndGet();
            if (held.hanging()) held.hold(ex);
            else held.answer(ex);
            return;
        }
        long n = t.requests.incrementAndGet();
        if (messageId == null || endpoint == null || !t.seen.add(endpoint + " " + messageId))
            t.duplicates.incrementAndGet();
        t.firstNanos.accumulateAndGet(now, Math::min);
        t.lastNanos.accumulateAndGet(now, Math::max);
        t.arrivals.add(new Arrival(messageId, now));
        StandardWebhooksVerifier v = endpoint == null ? null : t.verifiers.get(endpoint);
        if (v != null && n % Receiver.VERIFY_EVERY == 0) {
            var r = v.verify(messageId, h.getFirst("webhook-timestamp"), h.getFirst("webhook-signature"), body);
            (r.valid() ? t.verified : t.badSignatures).incrementAndGet();
        }
        held.answer(ex);
    }

    @Override
    public void close() {
        server.stop(0);
        held.close();
        workers.shutdownNow();
    }
}
