package dev.idem.server.internal;

import java.time.Duration;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * A bound on the requests the API works on at once, below the server's thread count, so that some threads are
 * always free to read requests and to answer {@code /healthz} and {@code /readyz} ({@link ProbeHandler}) even when
 * every request in hand waits for the store. Requests over the bound wait without a thread (Jetty's {@link
 * QoSHandler} suspends them) and go on as others finish; one that waits longer than {@link #MAX_WAIT}, or arrives
 * while {@link #MAX_WAITING} wait already, is answered 503 {@code node_busy} with {@code Retry-After} ({@link
 * ErrorMapper#forStatus}).
 */
final class ApiAdmission extends QoSHandler {
    /** Threads kept for reading requests, the probes and Jetty's own work. */
    static final int KEPT_THREADS = 40;

    static final Duration MAX_WAIT = Duration.ofSeconds(15);
    static final int MAX_WAITING = 2048;

    private ApiAdmission(int inHand) {
        setMaxRequestCount(inHand);
        setMaxSuspend(MAX_WAIT);
        setMaxSuspendedRequestCount(MAX_WAITING);
    }

    /** In front of {@code server}'s handlers (call before the body loader is inserted, so it goes outside this). */
    static void install(Server server) {
        ThreadPool pool = server.getThreadPool();
        int threads = pool instanceof ThreadPool.SizedThreadPool sized ? sized.getMaxThreads() : 200;
        server.insertHandler(new ApiAdmission(Math.max(8, threads - KEPT_THREADS)));
    }
}
