package dev.idem.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The fast loopback receiver both contenders deliver to, on 127.0.0.1, answering 200 with no body: a minimal
 * blocking HTTP/1.1 server by default, or the JDK's {@code com.sun.net.httpserver} with a fixed worker pool. Per {@link Tally} it counts requests, counts a {@code webhook-id} seen twice
 * as a duplicate, records the lag from the {@code Idem-Scheduled-For} header to the moment the request is read
 * (HdrHistogram, microseconds), and checks the Standard Webhooks signature of one request in {@value #VERIFY_EVERY}.
 * It runs in the benchmark's JVM, so it shares the machine's cores with the contender under test.
 */
public final class Receiver implements AutoCloseable {
    static final int VERIFY_EVERY = 50;
    private static final long HOUR_MICROS = TimeUnit.HOURS.toMicros(1);

    private final HttpServer server;
    private final ExecutorService workers;
    private final SocketTransport socket;
    /** The slow receiver's transport ({@link #answeringAfter}); null otherwise. */
    private final DelayedTransport delayed;
    /** How long the JDK server waits before answering (null: at once); never answers a held request before {@link #release()}. */
    private final java.time.Duration answerAfter;

    /** Paths under this prefix are answered at once and counted, the others hang uncounted ({@link #sameHost}); null: one path. */
    private final String answeredPrefix;

    private final java.util.concurrent.ScheduledExecutorService timer;
    /** Requests held unanswered while the receiver hangs. */
    private final HeldRequests held;

    private volatile Tally tally = new Tally(0, null);

    /** Counts of one measured run. Replace it with {@link #begin} before each run. */
    public static final class Tally {
        final long expected;
        final StandardWebhooksVerifier verifier;
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong early = new AtomicLong();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong badSignatures = new AtomicLong();
        final AtomicLong firstMicros = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong lastMicros = new AtomicLong(Long.MIN_VALUE);
        final Recorder lag = new Recorder(HOUR_MICROS, 3);
        private Histogram lagSoFar;

        Tally(long expected, StandardWebhooksVerifier verifier) {
            this.expected = expected;
            this.verifier = verifier;
        }

        public long requests() {
            return requests.get();
        }

        public long unique() {
            return seen.size();
        }

        public long duplicates() {
            return duplicates.get();
        }

        /** Requests that arrived more than a millisecond before their due time (a scheduler firing early). */
        public long early() {
            return early.get();
        }

        public long verified() {
            return verified.get();
        }

        public long badSignatures() {
            return badSignatures.get();
        }

        /** Epoch microseconds of the first and last request, or MAX/MIN when none came. */
        public long firstMicros() {
            return firstMicros.get();
        }

        public long lastMicros() {
            return lastMicros.get();
        }

        /** Lag from due time to arrival, in microseconds, of every request so far. */
        public synchronized Histogram lag() {
            Histogram interval = this.lag.getIntervalHistogram();
            if (lagSoFar == null) lagSoFar = interval;
            else lagSoFar.add(interval);
            return lagSoFar.copy();
        }
    }

    /**
     * Starts listening on an ephemeral loopback port.
     *
     * @param jdk the JDK's {@code com.sun.net.httpserver} with {@code threads} workers; else a minimal blocking
     *     socket server ({@link SocketTransport}), one thread per connection, which costs far less CPU per request
     */
    /**
     * A receiver that answers each request 200 after {@code delay}, from a timer: no thread waits for it, and one
     * selector thread reads every connection ({@link DelayedTransport}).
     */
    public static Receiver answeringAfter(java.time.Duration delay) throws IOException {
        return new Receiver(delay);
    }

    private Receiver(java.time.Duration answerAfter) throws IOException {
        this.answeredPrefix = null;
        this.answerAfter = answerAfter;
        this.held = new HeldRequests(false);
        this.timer = null;
        this.server = null;
        this.workers = null;
        this.socket = null;
        this.delayed = new DelayedTransport(answerAfter, this::record);
    }

    /** A receiver that reads each request and never answers it, until {@link #release()}. */
    public static Receiver hanging() throws IOException {
        return new Receiver(null, true, null);
    }

    /**
     * Two paths of one host and port: {@link #url()} ({@code /ok/a}) is answered at once and counted by {@link #begin};
     * {@link #hangingUrl()} ({@code /hang/b}) is read and never answered until {@link #release()}, and not counted.
     */
    public static Receiver sameHost() throws IOException {
        return new Receiver(null, true, "/ok/");
    }

    private Receiver(java.time.Duration answerAfter, boolean hang, String answeredPrefix) throws IOException {
        this.answeredPrefix = answeredPrefix;
        this.answerAfter = answerAfter;
        this.held = new HeldRequests(hang);
        this.timer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "receiver-timer");
            t.setDaemon(true);
            return t;
        });
        socket = null;
        delayed = null;
        // thousands of kept-alive connections: the JDK server would otherwise close those beyond 200 as they fall idle
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        workers = workers(4);
        server = jdkServer(8192, workers);
    }

    private static ExecutorService workers(int threads) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "receiver");
            t.setDaemon(true);
            return t;
        });
    }

    private HttpServer jdkServer(int backlog, ExecutorService executor) throws IOException {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), backlog);
        s.setExecutor(executor);
        s.createContext("/", this::handle);
        s.start();
        return s;
    }

    /** Answers every parked request now, and every later one at once or after the delay. */
    public void release() {
        held.release();
    }

    public Receiver(boolean jdk, int threads) throws IOException {
        this.answeredPrefix = null;
        this.answerAfter = null;
        this.held = new HeldRequests(false);
        this.timer = null;
        this.delayed = null;
        if (!jdk) {
            server = null;
            workers = null;
            socket = new SocketTransport(this::record);
            return;
        }
        socket = null;
        workers = workers(threads);
        server = jdkServer(2048, workers);
    }

    /** The URL deliveries go to. */
    public String url() {
        int port = socket != null
                ? socket.port()
                : delayed != null ? delayed.port() : server.getAddress().getPort();
        return "http://127.0.0.1:" + port + (answeredPrefix != null ? "/ok/a" : "/hook");
    }

    /** Of a {@link #sameHost} receiver: the path that hangs, on the same host and port as {@link #url()}. */
    public String hangingUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hang/b";
    }

    /** Whether {@link #hangingUrl()} is a path of this receiver's host (a {@link #sameHost} receiver). */
    boolean servesHangingPath() {
        return answeredPrefix != null;
    }

    /** Starts counting a new run; signatures are checked against {@code secret} when it is not null. */
    public Tally begin(long expected, SigningSecret secret) {
        StandardWebhooksVerifier v = secret == null
                ? null
                : new StandardWebhooksVerifier(
                        List.of(secret), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
        Tally t = new Tally(expected, v);
        tally = t;
        return t;
    }

    private void handle(HttpExchange ex) throws IOException {
        boolean answeredPath;
        try {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            var h = ex.getRequestHeaders();
            answeredPath =
                    answeredPrefix != null && ex.getRequestURI().getPath().startsWith(answeredPrefix);
            if (answeredPrefix == null || answeredPath)
                record(
                        h.getFirst("webhook-id"),
                        h.getFirst("webhook-timestamp"),
                        h.getFirst("webhook-signature"),
                        h.getFirst("Idem-Scheduled-For"),
                        body);
        } catch (IOException | RuntimeException e) {
            ex.close();
            throw e;
        }
        if (held.hanging() && !answeredPath) {
            held.hold(ex);
        } else if (answerAfter != null && !answerAfter.isZero()) {
            timer.schedule(() -> held.answer(ex), answerAfter.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            held.answer(ex);
        }
    }

    private void record(String id, String timestamp, String signature, String due, byte[] body) {
        Instant now = Instant.now();
        long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        Tally t = tally;
        long n = t.requests.incrementAndGet();
        if (id == null || !t.seen.add(id)) t.duplicates.incrementAndGet();
        t.firstMicros.accumulateAndGet(nowMicros, Math::min);
        t.lastMicros.accumulateAndGet(nowMicros, Math::max);
        if (due != null) {
            Instant d = Instant.parse(due);
            long lag = nowMicros - (d.getEpochSecond() * 1_000_000L + d.getNano() / 1_000);
            if (lag < -1_000) t.early.incrementAndGet();
            t.lag.recordValue(Math.min(Math.max(lag, 0), HOUR_MICROS));
        }
        if (t.verifier != null && n % VERIFY_EVERY == 0) {
            var r = t.verifier.verify(id, timestamp, signature, body);
            (r.valid() ? t.verified : t.badSignatures).incrementAndGet();
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            socket.close();
            return;
        }
        if (delayed != null) {
            delayed.close();
            return;
        }
        server.stop(0);
        held.close();
        workers.shutdownNow();
        if (timer != null) timer.shutdownNow();
    }
}
