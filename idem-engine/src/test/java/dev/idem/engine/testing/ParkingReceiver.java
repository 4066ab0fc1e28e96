package dev.idem.engine.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback receiver that holds no thread per request, so it can have thousands open at once: it answers 200 after
 * a delay from a timer, answers a fixed failing status, or parks the exchange unanswered (a hanging receiver) until its mode changes or it closes.
 * Counts requests per {@code webhook-id}, requests open now, and the most ever open at once.
 */
public final class ParkingReceiver implements AutoCloseable {
    /** How it treats each request. */
    public sealed interface Mode {}

    /** 200 after {@code delay} (zero: at once). */
    public record Answer(Duration delay) implements Mode {}

    /** Never answers while this mode lasts. */
    public record Hang() implements Mode {}

    /** Answers {@code status} at once (a failing receiver: a 5xx). */
    public record Fail(int status) implements Mode {}

    /** One request as it arrived. */
    /**
     * One request as it arrived.
     *
     * @param deliveryId its {@code webhook-id} (a message's id when it carries a message)
     * @param path its path, with {@code #<endpoint id>} when it carries a message
     */
    public record Arrival(String deliveryId, int attempt, long arrivedMillis, String path) {}

    static {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // the JDK server closes kept-alive connections beyond 200 idle ones as soon as they fall idle, racing the
        // client's reuse of them (a failed attempt, retried by the policy): not what these tests are about
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
    }

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(4, r -> daemon(r, "parking-receiver"));
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "parking-receiver-timer"));
    private final Set<HttpExchange> parked = ConcurrentHashMap.newKeySet();
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> perDelivery = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger maxOpen = new AtomicInteger();
    private volatile Mode mode;
    /** Modes of paths that differ from {@link #mode}, by path prefix. */
    private final Map<String, Mode> byPrefix = new ConcurrentHashMap<>();

    public ParkingReceiver(Mode mode) throws IOException {
        this(mode, 0);
    }

    /** A receiver on {@code port} of the loopback address (0: any free one). */
    public ParkingReceiver(Mode mode, int port) throws IOException {
        this.mode = mode;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 4096);
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** From now on requests are treated so; switching away from {@link Hang} answers the parked ones at once. */
    public void mode(Mode m) {
        this.mode = m;
        if (!(m instanceof Hang)) for (HttpExchange ex : parked) answer(ex);
    }

    /**
     * From now on requests whose path starts with {@code prefix} are treated so (the longest matching prefix wins);
     * switching away from {@link Hang} answers that prefix's parked ones at once.
     */
    public void mode(String prefix, Mode m) {
        byPrefix.put(prefix, m);
        if (!(m instanceof Hang)) for (HttpExchange ex : parked) if (modeOf(where(ex)) == m) answer(ex);
    }

    /**
     * What modes and prefixes match a request on: its path, followed by {@code #} and the endpoint it names
     * ({@code Idem-Endpoint-Id}) when it carries a message, as {@code /hooks#ep_…}: two endpoints on one URL are told
     * apart.
     */
    private static String where(HttpExchange ex) {
        String endpoint = ex.getRequestHeaders().getFirst("Idem-Endpoint-Id");
        return ex.getRequestURI().getPath() + (endpoint == null ? "" : "#" + endpoint);
    }

    private Mode modeOf(String path) {
        Mode m = mode;
        int longest = -1;
        for (Map.Entry<String, Mode> e : byPrefix.entrySet())
            if (path.startsWith(e.getKey()) && e.getKey().length() > longest) {
                longest = e.getKey().length();
                m = e.getValue();
            }
        return m;
    }

    /** Requests received on paths starting with {@code prefix}. */
    public List<Arrival> arrivals(String prefix) {
        return arrivals.stream().filter(a -> a.path().startsWith(prefix)).toList();
    }

    public List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    public int requests() {
        return arrivals.size();
    }

    public int requestsFor(String deliveryId) {
        AtomicInteger n = perDelivery.get(deliveryId);
        return n == null ? 0 : n.get();
    }

    /** Requests received and not yet answered. */
    public int open() {
        return open.get();
    }

    /** Requests on paths starting with {@code prefix} received and not yet answered (parked). */
    public int parked(String prefix) {
        return (int) parked.stream().filter(ex -> where(ex).startsWith(prefix)).count();
    }

    public int maxOpen() {
        return maxOpen.get();
    }

    /** Starts counting {@link #maxOpen()} afresh from the requests open now. */
    public void resetMaxOpen() {
        maxOpen.set(open.get());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (InputStream in = ex.getRequestBody()) {
            in.readAllBytes();
        }
        String id = ex.getRequestHeaders().getFirst("webhook-id");
        String attempt = ex.getRequestHeaders().getFirst("Idem-Attempt");
        maxOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        String path = where(ex);
        arrivals.add(
                new Arrival(id, attempt == null ? 0 : Integer.parseInt(attempt), System.currentTimeMillis(), path));
        if (id != null)
            perDelivery.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        Mode m = modeOf(path);
        if (m instanceof Fail f) answer(ex, f.status());
        else if (m instanceof Answer a) {
            if (a.delay().isZero()) answer(ex);
            else timer.schedule(() -> answer(ex), a.delay().toMillis(), TimeUnit.MILLISECONDS);
        } else {
            parked.add(ex);
            if (!(modeOf(path) instanceof Hang)) answer(ex);
        }
    }

    private void answer(HttpExchange ex) {
        answer(ex, 200);
    }

    private void answer(HttpExchange ex, int status) {
        parked.remove(ex);
        try {
            ex.sendResponseHeaders(status, -1);
        } catch (IOException e) {
            // the sender gave up on it (deadline): the connection is gone
        } finally {
            open.decrementAndGet();
            ex.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        for (HttpExchange ex : parked) ex.close();
        handlers.shutdownNow();
        timer.shutdownNow();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
