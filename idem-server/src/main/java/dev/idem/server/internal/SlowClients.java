package dev.idem.server.internal;

import dev.idem.server.HttpTimeouts;
import io.javalin.config.JavalinConfig;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.EagerContentHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Slow or stalled senders cannot hold what other requests need (about 260 connections trickling a body
 * with a valid key made a GET wait 29 s, each holding one of Jetty's 250 request threads in a blocking read).
 * <ul>
 *   <li>A request's body is read asynchronously, with no request thread, before the API sees the request (Jetty's
 *       {@link EagerContentHandler}); the API then reads it from memory. The whole body must arrive within
 *       {@link HttpTimeouts#body()} of the headers, else the request is answered 408 in the API's error shape and its
 *       connection closed.</li>
 *   <li>A header block must be complete within {@link HttpTimeouts#headers()} of its first byte, else the connection
 *       is closed ({@link HeaderDeadline}); Jetty parses headers without a thread too, so this bounds sockets and
 *       memory.</li>
 *   <li>A connection with nothing happening is closed after {@link HttpTimeouts#idle()}.</li>
 * </ul>
 */
final class SlowClients {
    private SlowClients() {}

    /**
     * @param maxBody bodies declared longer than this (or than their path's lower limit, {@link BodyLimits#buffered})
     *     are not buffered: the API refuses them by their Content-Length
     */
    static void install(JavalinConfig config, HttpTimeouts timeouts, long maxBody) {
        config.jetty.modifyServer(server -> {
            // in front of every handler Javalin attaches (it attaches its own inside the innermost wrapper)
            server.insertHandler(new EagerContentHandler(
                    new DeadlineLoaderFactory(timeouts.body().toMillis(), maxBody)));
            HeaderDeadline headers = new HeaderDeadline(timeouts.headers());
            server.addBean(headers);
            // Javalin adds its connector after this runs and before the server starts
            server.addEventListener(new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarting(LifeCycle event) {
                    for (Connector c : server.getConnectors()) {
                        if (c instanceof AbstractConnector a) {
                            a.setIdleTimeout(timeouts.idle().toMillis());
                            a.addEventListener(headers);
                        }
                    }
                }
            });
        });
    }

    /** Loads every request body (up to {@code maxBody}) before the API runs, within a deadline. */
    static final class DeadlineLoaderFactory implements EagerContentHandler.ContentLoaderFactory {
        private final long deadlineMillis;
        private final long maxBody;

        DeadlineLoaderFactory(long deadlineMillis, long maxBody) {
            this.deadlineMillis = deadlineMillis;
            this.maxBody = maxBody;
        }

        @Override
        public String getApplicableMimeType() {
            return null; // every content type
        }

        @Override
        public EagerContentHandler.ContentLoader newContentLoader(
                String contentType,
                String mimeType,
                Handler handler,
                Request request,
                Response response,
                Callback callback) {
            long max = BodyLimits.buffered(Request.getPathInContext(request), maxBody);
            if (request.getLength() > max) return null; // refused by its length, nothing to wait for
            return new DeadlineLoader(handler, request, response, callback, max, deadlineMillis);
        }
    }

    /** Retains the body's chunks until the last one, then hands the request on; or answers 408 when the deadline passes first. */
    static final class DeadlineLoader extends EagerContentHandler.RetainedContentLoaderFactory.RetainedContentLoader {
        private final long deadlineMillis;
        private final AtomicBoolean decided = new AtomicBoolean();
        private volatile Scheduler.Task timer;

        DeadlineLoader(
                Handler handler,
                Request request,
                Response response,
                Callback callback,
                long maxBody,
                long deadlineMillis) {
            super(handler, request, response, callback, maxBody + 64 * 1024, -1, false);
            this.deadlineMillis = deadlineMillis;
        }

        @Override
        protected void load() {
            timer = getRequest()
                    .getComponents()
                    .getScheduler()
                    .schedule(this::expire, deadlineMillis, TimeUnit.MILLISECONDS);
            super.load();
        }

        private void expire() {
            if (!decided.compareAndSet(false, true)) return;
            Response.writeError(
                    getRequest(),
                    getResponse(),
                    getCallback(),
                    408,
                    "the body did not arrive within " + deadlineMillis / 1000.0 + " s of the headers");
        }

        @Override
        protected void handle(Request request, Response response, Callback callback) {
            if (!decided.compareAndSet(false, true)) {
                // already answered 408: give back the chunks retained since
                for (Content.Chunk c = request.read(); c != null; c = request.read()) {
                    c.release();
                    if (c.isLast()) break;
                }
                return;
            }
            Scheduler.Task t = timer;
            if (t != null) t.cancel();
            super.handle(request, response, callback);
        }
    }
}
