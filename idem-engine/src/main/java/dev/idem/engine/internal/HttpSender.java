package dev.idem.engine.internal;

import dev.idem.engine.EndpointGuard;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManager;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.entity.BasicAsyncEntityProducer;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.pool.PoolConcurrencyPolicy;
import org.apache.hc.core5.pool.PoolReusePolicy;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends attempts without a thread each: Apache HttpClient 5's async client (one I/O reactor per core, HTTP/1.1 kept
 * alive, callbacks), so a node may have thousands of attempts in flight to slow receivers. {@link #send} returns at
 * once; the callback gets the classified result exactly once, from an I/O thread or the deadline watchdog.
 *
 * <p>Safety kept from the blocking sender it replaced: every new connection resolves through
 * {@link EndpointGuard#resolveForConnect} (the addresses checked are the ones connected to: no DNS-rebinding window);
 * TLS certificates and host names are verified (the client's default TLS strategy); redirects are never followed (a
 * 3xx is a failed attempt); header names and values are checked before anything is sent; only the first
 * {@link dev.idem.core.Attempt#RESPONSE_BODY_LIMIT} bytes of a response are kept, at most 64 KiB more are read to keep
 * the connection, and a longer body drops the connection instead ({@link LimitedResponseConsumer}); the attempt's
 * deadline cancels the exchange (a watchdog sweeping every 50 ms), which closes its connection.
 *
 * <p>One attempt reaches a receiver at most once: a receiver that closes the connection without answering gets no
 * second copy of the attempt with the same {@code Idem-Attempt}. The client resends only a request it provably never
 * wrote ({@link NotExecutedRetry}). A kept-alive connection the receiver closed while it sat idle is not reused: the
 * reactor watches idle pooled connections and drops one as soon as the receiver's close arrives; a close that crosses
 * the reuse on the wire is a failed attempt, retried by the delivery's policy like any other.
 */
public final class HttpSender implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(HttpSender.class);
    /** What the sender reports, once per {@link #send}. */
    public interface Callback {
        void completed(AttemptResult result);

        /** The exchange was abandoned at shutdown: nothing is known, nothing is to be recorded. */
        void aborted();
    }

    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "idem-send-watchdog");
        t.setDaemon(true);
        return t;
    });
    /**
     * How often the watchdog looks: a deadline is enforced within this much. One sweep over every exchange in flight
     * (10,000 take well under a millisecond) costs less than a timer per request at thousands of requests a second.
     */
    private static final long SWEEP_MS = 50;

    private static final Duration CONNECT_TIMEOUT_DURATION = Duration.ofSeconds(10);
    private static final Timeout CONNECT_TIMEOUT = Timeout.of(CONNECT_TIMEOUT_DURATION);
    static final int BUFFER_SIZE = 8 * 1024;

    private final CloseableHttpAsyncClient client;
    private final PoolingAsyncClientConnectionManager connections;
    private final EndpointGuard guard;
    private final Clock clock;
    private final Set<Exchange> inFlight = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> sweeper;
    private volatile boolean aborting;

    /** @param maxConnections connections kept per destination and in all: the node's attempts in flight */
    public HttpSender(EndpointGuard guard, Clock clock, int maxConnections) {
        this(guard, clock, maxConnections, false);
    }

    /**
     * @param traced whether attempts may carry an {@link AttemptSpan} whose connection events are watched
     *     ({@link ConnectionEvents}); false adds nothing to the exchange
     */
    public HttpSender(EndpointGuard guard, Clock clock, int maxConnections, boolean traced) {
        this.guard = guard;
        this.clock = clock;
        DnsResolver resolver = new DnsResolver() {
            @Override
            public java.net.InetAddress[] resolve(String host) throws java.net.UnknownHostException {
                AttemptSpan span = traced ? ConnectionEvents.connecting() : null;
                if (span == null) return guard.resolveForConnect(host);
                long t0 = System.nanoTime();
                try {
                    return guard.resolveForConnect(host);
                } finally {
                    span.dns(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                }
            }

            @Override
            public String resolveCanonicalHostname(String host) {
                return host;
            }
        };
        this.connections = PoolingAsyncClientConnectionManagerBuilder.create()
                .setDnsResolver(resolver)
                .setMaxConnTotal(maxConnections)
                .setMaxConnPerRoute(maxConnections)
                .setPoolConcurrencyPolicy(PoolConcurrencyPolicy.LAX)
                .setConnPoolPolicy(PoolReusePolicy.LIFO)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(CONNECT_TIMEOUT)
                        .setValidateAfterInactivity(TimeValue.ofSeconds(1))
                        .setTimeToLive(TimeValue.ofMinutes(5))
                        .build())
                // HTTP/2 is not offered to receivers: one attempt, one exchange, on its own connection's fate
                .setDefaultTlsConfig(TlsConfig.custom()
                        .setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                        .build())
                .build();
        HttpAsyncClientBuilder builder = HttpAsyncClients.custom();
        if (traced)
            builder.addExecInterceptorBefore(
                    ChainElement.CONNECT.name(), "idem-connection-events", new ConnectionEvents());
        this.client = builder.setConnectionManager(connections)
                .setIOReactorConfig(IOReactorConfig.custom()
                        .setTcpNoDelay(true)
                        .setSoKeepAlive(true)
                        .build())
                // three buffers of this size per connection: the 32 KiB default made an attempt in flight cost 105 KiB
                // of
                // heap (measured, bench/InFlightMemory); a webhook's head and kept body fit in a few KiB
                .setHttp1Config(Http1Config.custom().setBufferSize(BUFFER_SIZE).build())
                // an exchange cancelled by its deadline or at shutdown surfaces
                // here too: each attempt already has its outcome
                .setIoReactorExceptionCallback(e -> log.debug("HTTP client I/O reactor: {}", e.toString()))
                .disableRedirectHandling()
                .setRetryStrategy(new NotExecutedRetry())
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .disableConnectionState()
                .evictIdleConnections(TimeValue.ofSeconds(30))
                .build();
        client.start();
        this.sweeper = WATCHDOG.scheduleWithFixedDelay(this::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
    }

    /** Kept-alive connections idle in the pool (tests). */
    int idleConnections() {
        return connections.getTotalStats().getAvailable();
    }

    /** Exchanges in flight now. */
    public int inFlight() {
        return inFlight.size();
    }

    /**
     * Starts one attempt. Never throws: a request that cannot be built or sent (a bad endpoint, a header the wire
     * cannot carry, anything the client throws) completes the callback with a failed result before this returns.
     *
     * @param timeout the whole attempt's deadline, from connect to the last byte of the response
     */
    public void send(DeliveryRequest request, Duration timeout, Callback callback) {
        send(request, timeout, callback, null);
    }

    /**
     * As {@link #send(DeliveryRequest, Duration, Callback)}, putting what happens on the wire on {@code span} (null:
     * untraced). The caller ends the span.
     */
    void send(DeliveryRequest request, Duration timeout, Callback callback, AttemptSpan span) {
        Instant startedAt = clock.instant();
        long t0 = System.nanoTime();
        URI uri;
        try {
            uri = guard.checkBeforeConnect(
                    request.endpoint()); // refuses a port outside 1..65535 too (EndpointGuard.syntaxError)
        } catch (EndpointGuard.EndpointRefusedException e) {
            callback.completed(AttemptResult.notSent(startedAt, "endpoint refused: " + e.getMessage()));
            return;
        }
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            String refused = SendOutcomes.headerRefusal(h.getKey(), h.getValue());
            if (refused != null) {
                callback.completed(
                        AttemptResult.notSent(startedAt, "header '" + h.getKey() + "' cannot be sent: " + refused));
                return;
            }
        }
        Exchange ex = new Exchange(uri, timeout, startedAt, t0, callback);
        inFlight.add(ex);
        try {
            HttpRequest post = new BasicHttpRequest("POST", uri);
            request.headers().forEach(post::addHeader);
            AsyncRequestProducer producer =
                    new BasicRequestProducer(post, new BasicAsyncEntityProducer(request.body(), null));
            HttpClientContext context = HttpClientContext.create();
            if (span != null) context.setAttribute(ConnectionEvents.SPAN, span);
            Timeout perRead = Timeout.ofMilliseconds(Math.max(1, timeout.toMillis()));
            context.setRequestConfig(RequestConfig.custom()
                    .setResponseTimeout(perRead)
                    .setConnectionRequestTimeout(perRead)
                    .build());
            if (aborting) {
                ex.abort();
                return;
            }
            ex.future = client.execute(producer, new LimitedResponseConsumer(span), null, context, ex);
            if (ex.done.get()) ex.future.cancel(true);
        } catch (RuntimeException e) {
            ex.finish(SendOutcomes.failure(
                    ex.startedAt, ex.t0, "request could not be sent: " + SendOutcomes.message(e), false));
        }
    }

    /** Aborts every exchange in flight and every one started from now on (shutdown past its grace). */
    public void abortInFlight() {
        aborting = true;
        for (Exchange ex : inFlight) ex.abort();
    }

    @Override
    public void close() {
        sweeper.cancel(false);
        abortInFlight();
        client.close(CloseMode.IMMEDIATE);
        connections.close(CloseMode.IMMEDIATE);
    }

    private void sweep() {
        long now = System.nanoTime();
        for (Exchange ex : inFlight) if (now - ex.deadlineNanos > 0) ex.expire();
    }

    /** One attempt on the wire; whichever of answer, failure, deadline or abort comes first decides it. */
    private final class Exchange implements FutureCallback<LimitedResponseConsumer.Response> {
        final URI uri;
        final Duration timeout;
        final Instant startedAt;
        final long t0;
        final long deadlineNanos;
        final Callback callback;
        final AtomicBoolean done = new AtomicBoolean();
        volatile Future<?> future;

        Exchange(URI uri, Duration timeout, Instant startedAt, long t0, Callback callback) {
            this.uri = uri;
            this.timeout = timeout;
            this.startedAt = startedAt;
            this.t0 = t0;
            this.deadlineNanos = t0 + timeout.toNanos();
            this.callback = callback;
        }

        @Override
        public void completed(LimitedResponseConsumer.Response r) {
            finish(SendOutcomes.answer(startedAt, t0, r, clock));
        }

        @Override
        public void failed(Exception e) {
            finish(SendOutcomes.failure(
                    startedAt,
                    t0,
                    SendOutcomes.describe(e, uri, timeout, CONNECT_TIMEOUT_DURATION),
                    SendOutcomes.noConnection(e)));
        }

        @Override
        public void cancelled() {
            // only this sender cancels, after deciding the outcome (deadline or abort)
        }

        void expire() {
            if (finish(SendOutcomes.failure(
                    startedAt, t0, "timeout: no complete response within " + timeout.toMillis() + "ms", false)))
                cancel();
        }

        void abort() {
            if (!done.compareAndSet(false, true)) return;
            inFlight.remove(this);
            cancel();
            callback.aborted();
        }

        private void cancel() {
            Future<?> f = future;
            if (f != null) f.cancel(true);
        }

        boolean finish(AttemptResult result) {
            if (!done.compareAndSet(false, true)) return false;
            inFlight.remove(this);
            callback.completed(result);
            return true;
        }
    }
}
