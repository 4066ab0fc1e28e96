package dev.idem.engine.internal;

import java.io.IOException;
import org.apache.hc.client5.http.EndpointInfo;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.async.AsyncExecRuntime;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncClientExchangeHandler;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.util.TimeValue;

/**
 * Puts an attempt's connection on its span: an element of the HTTP client's chain, ahead of its connect step, that
 * watches the exchange's connection being acquired (reused or new) and connected. Installed only when tracing is on.
 *
 * <p>The client tells no request which DNS lookup served it; the lookup runs inside {@code connectEndpoint} on the
 * thread that calls it, so the span of the connection being made is {@link #connecting()} there, where the sender's
 * resolver reads it. A lookup made on another thread shows no {@code dns} event.
 */
final class ConnectionEvents implements AsyncExecChainHandler {
    static final String SPAN = "idem.attempt.span";
    private static final ThreadLocal<AttemptSpan> CONNECTING = new ThreadLocal<>();

    /** The span whose new connection this thread is making, or null. */
    static AttemptSpan connecting() {
        return CONNECTING.get();
    }

    @Override
    public void execute(
            HttpRequest request,
            AsyncEntityProducer entity,
            AsyncExecChain.Scope scope,
            AsyncExecChain chain,
            AsyncExecCallback callback)
            throws HttpException, IOException {
        Object span = scope.clientContext.getAttribute(SPAN);
        if (!(span instanceof AttemptSpan s)) {
            chain.proceed(request, entity, scope, callback);
            return;
        }
        AsyncExecChain.Scope watched = new AsyncExecChain.Scope(
                scope.exchangeId,
                scope.route,
                scope.originalRequest,
                scope.cancellableDependency,
                scope.clientContext,
                new Watched(scope.execRuntime, s),
                scope.scheduler,
                scope.execCount);
        chain.proceed(request, entity, watched, callback);
    }

    /** The exchange's runtime, reporting acquire and connect to the span; everything else passes through. */
    private static final class Watched implements AsyncExecRuntime {
        private final AsyncExecRuntime d;
        private final AttemptSpan span;

        Watched(AsyncExecRuntime d, AttemptSpan span) {
            this.d = d;
            this.span = span;
        }

        @Override
        public boolean isEndpointAcquired() {
            return d.isEndpointAcquired();
        }

        @Override
        public Cancellable acquireEndpoint(
                String id,
                HttpRoute route,
                Object state,
                HttpClientContext context,
                FutureCallback<AsyncExecRuntime> callback) {
            return d.acquireEndpoint(id, route, state, context, new Relay(callback) {
                @Override
                public void completed(AsyncExecRuntime r) {
                    span.connectionAcquired(d.isEndpointConnected());
                    callback.completed(Watched.this);
                }
            });
        }

        @Override
        public void releaseEndpoint() {
            d.releaseEndpoint();
        }

        @Override
        public void discardEndpoint() {
            d.discardEndpoint();
        }

        @Override
        public boolean isEndpointConnected() {
            return d.isEndpointConnected();
        }

        @Override
        public Cancellable connectEndpoint(HttpClientContext context, FutureCallback<AsyncExecRuntime> callback) {
            CONNECTING.set(span);
            try {
                return d.connectEndpoint(context, new Relay(callback) {
                    @Override
                    public void completed(AsyncExecRuntime r) {
                        span.connected();
                        callback.completed(Watched.this);
                    }
                });
            } finally {
                CONNECTING.remove();
            }
        }

        @Override
        public void disconnectEndpoint() {
            d.disconnectEndpoint();
        }

        @Override
        public void upgradeTls(HttpClientContext context) {
            d.upgradeTls(context);
        }

        @Override
        public void upgradeTls(HttpClientContext context, FutureCallback<AsyncExecRuntime> callback) {
            d.upgradeTls(context, callback);
        }

        @Override
        public EndpointInfo getEndpointInfo() {
            return d.getEndpointInfo();
        }

        @Override
        public boolean validateConnection() {
            return d.validateConnection();
        }

        @Override
        public Cancellable execute(String id, AsyncClientExchangeHandler handler, HttpClientContext context) {
            return d.execute(id, handler, context);
        }

        @Override
        public void markConnectionReusable(Object state, TimeValue duration) {
            d.markConnectionReusable(state, duration);
        }

        @Override
        public void markConnectionNonReusable() {
            d.markConnectionNonReusable();
        }

        @Override
        public AsyncExecRuntime fork() {
            return new Watched(d.fork(), span);
        }
    }

    /** Passes failure and cancellation through; {@code completed} is the watcher's. */
    private abstract static class Relay implements FutureCallback<AsyncExecRuntime> {
        private final FutureCallback<AsyncExecRuntime> callback;

        Relay(FutureCallback<AsyncExecRuntime> callback) {
            this.callback = callback;
        }

        @Override
        public void failed(Exception e) {
            callback.failed(e);
        }

        @Override
        public void cancelled() {
            callback.cancelled();
        }
    }
}
