package dev.idem.engine.internal;

import dev.idem.core.Attempt;
import dev.idem.engine.EndpointGuard;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.NoHttpResponseException;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.io.ModalCloseable;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends one attempt and classifies what came back. Called from the sender pool's threads, it blocks until the
 * response or the deadline, one thread per request in flight.
 *
 * <p>The client is Apache HttpClient 5 (classic, blocking, pooled HTTP/1.1 kept alive), not
 * {@code java.net.http.HttpClient}: measured in idem-bench's wire baseline on this 2-core machine it costs about
 * half the CPU per signed POST (85–90 µs against 210 µs, receiver included) and passes 2.5× the requests per
 * second, and its resolver hook lets {@link EndpointGuard} check exactly the addresses a new connection is made to.
 *
 * <p>Deadlines: the per-read timeout is the attempt's timeout, and a shared watchdog, sweeping every
 * 50 ms, cancels (closes) a request still running past the deadline (a body that trickles in after
 * the headers). Redirects are never followed: a
 * 3xx is a failed attempt. Only the first {@link Attempt#RESPONSE_BODY_LIMIT} bytes of a response are kept; a
 * longer body is drained a little so the connection can be reused, then the connection is dropped instead.
 */
public final class HttpSender implements AutoCloseable {
    /** Sweeps the senders' requests in flight and cancels those past their deadline. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "idem-send-watchdog");
        t.setDaemon(true);
        return t;
    });
    /**
     * How often the watchdog looks: a deadline is enforced within this much. One sweep over the (at most
     * sender-threads) requests in flight costs less than a timer per request at thousands of requests a second.
     */
    private static final long SWEEP_MS = 50;
    /** Past the kept bytes, at most this much more body is read to keep the connection; more and it is dropped. */
    private static final int DRAIN_LIMIT = 64 * 1024;
    private static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(10);

    private final CloseableHttpClient client;
    private final PoolingHttpClientConnectionManager connections;
    private final EndpointGuard guard;
    private final Clock clock;
    /** Requests in flight, so shutdown can abort them: a blocking socket read ignores thread interrupts. */
    private final Set<Deadline> inFlight = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> sweeper;
    private volatile boolean aborting;

    /**
     * @param maxConnections connections kept per host and in all: the sender threads, so none waits for another's
     *        connection
     */
    public HttpSender(EndpointGuard guard, Clock clock, int maxConnections) {
        this.guard = guard;
        this.clock = clock;
        DnsResolver resolver = new DnsResolver() {
            @Override
            public java.net.InetAddress[] resolve(String host) throws java.net.UnknownHostException {
                return guard.resolveForConnect(host);
            }

            @Override
            public String resolveCanonicalHostname(String host) {
                return host;
            }
        };
        this.connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(resolver)
                .setMaxConnTotal(maxConnections)
                .setMaxConnPerRoute(maxConnections)
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                .setConnPoolPolicy(PoolReusePolicy.LIFO)
                .setDefaultSocketConfig(SocketConfig.custom().setTcpNoDelay(true).build())
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(CONNECT_TIMEOUT)
                        // a receiver may close an idle kept-alive connection: check one idle this long before reuse
                        .setValidateAfterInactivity(TimeValue.ofSeconds(1))
                        .setTimeToLive(TimeValue.ofMinutes(5))
                        .build())
                .build();
        this.client = HttpClients.custom()
                .setConnectionManager(connections)
                .disableRedirectHandling()
                .setRetryStrategy(new StaleConnectionRetry())
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .disableDefaultUserAgent()
                .evictIdleConnections(TimeValue.ofSeconds(30))
                .build();
        this.sweeper = WATCHDOG.scheduleWithFixedDelay(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        long now = System.nanoTime();
        for (Deadline d : inFlight) if (now - d.deadlineNanos > 0) d.expire();
    }

    /**
     * @param timeout the whole attempt's deadline, from connect to the last byte of the response
     * @throws InterruptedException when the engine is shutting down past its grace; no outcome is recorded then
     */
    public AttemptResult send(DeliveryRequest request, Duration timeout) throws InterruptedException {
        Instant startedAt = clock.instant();
        long t0 = System.nanoTime();
        URI uri;
        try {
            uri = guard.checkBeforeConnect(request.endpoint());
        } catch (EndpointGuard.EndpointRefusedException e) {
            return AttemptResult.notSent(startedAt, "endpoint refused: " + e.getMessage());
        }
        HttpPost post = new HttpPost(uri);
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            String refused = headerRefusal(h.getKey(), h.getValue());
            if (refused != null) return AttemptResult.notSent(startedAt, "header '" + h.getKey() + "' cannot be sent: " + refused);
            post.addHeader(h.getKey(), h.getValue());
        }
        post.setEntity(new ByteArrayEntity(request.body(), null));
        Timeout perRead = Timeout.ofMilliseconds(Math.max(1, timeout.toMillis()));
        post.setConfig(RequestConfig.custom().setResponseTimeout(perRead).setConnectionRequestTimeout(perRead).build());

        Deadline deadline = new Deadline(post, t0 + timeout.toNanos());
        inFlight.add(deadline);
        if (aborting) deadline.abort();
        try {
            ClassicHttpResponse response = client.executeOpen(null, post, null);
            int status = response.getCode();
            String body = readBody(response);
            long ms = elapsedMs(t0);
            if (status >= 200 && status < 300) return new AttemptResult(startedAt, ms, status, null, body, Optional.empty(), true);
            Optional<Duration> retryAfter = (status == 429 || status == 503)
                    ? RetryAfter.parse(headerValue(response, "Retry-After"), clock.instant())
                    : Optional.empty();
            String location = headerValue(response, "Location");
            String error = status >= 300 && status < 400
                    ? "HTTP " + status + ": redirect not followed" + (location == null ? "" : " (Location: " + location + ")")
                    : "HTTP " + status;
            return new AttemptResult(startedAt, ms, status, error, body, retryAfter, true);
        } catch (IOException | RuntimeException e) {
            if (deadline.aborted() || Thread.interrupted()) throw new InterruptedException("send aborted at shutdown");
            if (deadline.expired()) return failed(startedAt, t0, "timeout: no complete response within " + timeout.toMillis() + "ms");
            return failed(startedAt, t0, describe(e, uri, timeout));
        } finally {
            inFlight.remove(deadline);
        }
    }

    /** Aborts every request in flight and every one started from now on (shutdown past its grace). */
    public void abortInFlight() {
        aborting = true;
        for (Deadline d : inFlight) d.abort();
    }

    @Override
    public void close() {
        sweeper.cancel(false);
        abortInFlight();
        client.close(CloseMode.IMMEDIATE);
        connections.close(CloseMode.IMMEDIATE);
    }

    /**
     * Keeps the first bytes; drains a little more so the connection goes back to the pool, else drops it. The
     * response is closed when this returns or throws.
     */
    private static String readBody(ClassicHttpResponse response) throws IOException {
        boolean reusable = false;
        try {
            HttpEntity entity = response.getEntity();
            if (entity == null) {
                reusable = true;
                return null;
            }
            byte[] kept = new byte[Attempt.RESPONSE_BODY_LIMIT];
            int length = 0;
            InputStream in = entity.getContent();
            int n = 0;
            while (length < kept.length && (n = in.read(kept, length, kept.length - length)) != -1) length += n;
            byte[] skip = new byte[4096];
            int drained = 0;
            while (n != -1 && drained <= DRAIN_LIMIT && (n = in.read(skip)) != -1) drained += n;
            // closing the stream reads the rest of the body: with more left, the connection is dropped instead
            if (n == -1) {
                in.close();
                reusable = true;
            }
            return length == 0 ? null : new String(kept, 0, length, StandardCharsets.UTF_8);
        } finally {
            if (!reusable && response instanceof ModalCloseable m) m.close(CloseMode.IMMEDIATE);
            else response.close();
        }
    }

    private static String headerValue(ClassicHttpResponse response, String name) {
        Header h = response.getFirstHeader(name);
        return h == null ? null : h.getValue();
    }

    /** What {@code java.net.http} would refuse too: a name that is not a token, a value with a line break. */
    private static String headerRefusal(String name, String value) {
        if (name.isEmpty()) return "empty name";
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) return "the name is not an HTTP token";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xff) return "the value holds a line break or a character outside Latin-1";
        }
        return null;
    }

    /**
     * Sends a request once more, at once, when the receiver closed the connection without a byte of response:
     * what a kept-alive connection the receiver closed while it sat idle in the pool looks like (the check
     * before reuse only runs after a second of idleness). The same attempt goes out again with the same headers;
     * the request may have reached the receiver, which the idempotency key covers, as for any retry. Nothing
     * else is retried here: the engine's retry policy decides.
     */
    private static final class StaleConnectionRetry implements org.apache.hc.client5.http.HttpRequestRetryStrategy {
        @Override
        public boolean retryRequest(org.apache.hc.core5.http.HttpRequest request, IOException exception, int execCount,
                                    org.apache.hc.core5.http.protocol.HttpContext context) {
            return execCount <= 1 && exception instanceof NoHttpResponseException;
        }

        @Override
        public boolean retryRequest(org.apache.hc.core5.http.HttpResponse response, int execCount,
                                    org.apache.hc.core5.http.protocol.HttpContext context) {
            return false;
        }

        @Override
        public TimeValue getRetryInterval(org.apache.hc.core5.http.HttpRequest request, IOException exception, int execCount,
                                          org.apache.hc.core5.http.protocol.HttpContext context) {
            return TimeValue.ZERO_MILLISECONDS;
        }

        @Override
        public TimeValue getRetryInterval(org.apache.hc.core5.http.HttpResponse response, int execCount,
                                          org.apache.hc.core5.http.protocol.HttpContext context) {
            return TimeValue.ZERO_MILLISECONDS;
        }
    }

    /**
     * One send's deadline. Cancelling the request closes its connection, which ends a blocked connect or read in
     * the sender thread with an I/O error; the flags say which cancel it was.
     */
    private static final class Deadline {
        private final HttpPost request;
        private final long deadlineNanos;
        private volatile boolean expired;
        private volatile boolean aborted;

        Deadline(HttpPost request, long deadlineNanos) {
            this.request = request;
            this.deadlineNanos = deadlineNanos;
        }

        void expire() {
            expired = true;
            request.cancel();
        }

        void abort() {
            aborted = true;
            request.cancel();
        }

        boolean expired() {
            return expired;
        }

        boolean aborted() {
            return aborted;
        }
    }

    private static AttemptResult failed(Instant startedAt, long t0, String error) {
        return new AttemptResult(startedAt, elapsedMs(t0), null, error, null, Optional.empty(), true);
    }

    private static String describe(Throwable t, URI uri, Duration timeout) {
        String target = uri.getHost() + ":" + (uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
        if (t instanceof EndpointGuard.RefusedHostException) return "endpoint refused at connect: " + t.getMessage();
        if (t instanceof java.net.UnknownHostException) return "connection failed: host '" + uri.getHost() + "' does not resolve";
        if (t instanceof ConnectTimeoutException) return "connect timeout: no connection to " + target + " within " + CONNECT_TIMEOUT.toMilliseconds() + "ms";
        if (t instanceof SocketTimeoutException) return "timeout: no response within " + timeout.toMillis() + "ms";
        if (t instanceof ConnectException) return "connection failed: could not connect to " + target + " (refused or unreachable)";
        if (t instanceof NoHttpResponseException) return "I/O error talking to " + target + ": the connection closed without a response";
        if (t instanceof javax.net.ssl.SSLException) return "TLS handshake with " + target + " failed: " + message(t);
        if (t instanceof IOException) return "I/O error talking to " + target + ": " + message(t);
        return "request failed: " + message(t);
    }

    private static String message(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage();
        return root.getClass().getSimpleName() + (m == null ? "" : " (" + m + ")");
    }

    private static long elapsedMs(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
