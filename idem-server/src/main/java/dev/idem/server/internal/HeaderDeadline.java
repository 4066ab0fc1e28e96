package dev.idem.server.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * Closes an HTTP/1 connection whose request header block has been arriving for longer than a limit (a client
 * trickling its headers a byte at a time; each byte would reset Jetty's idle timeout, and Jetty has no header
 * timeout of its own). Every {@link #SWEEP} it looks at each open connection's parser: a parser past the start of a
 * request but not yet at its body is in a header block, timed from the sweep that first saw it there. A kept-alive
 * connection waiting for its next request is at the start, so only the idle timeout applies to it.
 *
 * <p>The parser is reached through Jetty's {@code internal} HttpConnection (public, but not API): when a Jetty upgrade
 * moves it, SlowClientTest fails.
 */
final class HeaderDeadline extends AbstractLifeCycle implements Connection.Listener {
    static final Duration SWEEP = Duration.ofMillis(250);
    private final long limitNanos;
    /** Open connections, each with the System.nanoTime its header block was first seen in progress (0: not in one). */
    private final Map<Connection, long[]> open = new ConcurrentHashMap<>();

    private ScheduledExecutorService sweeper;

    HeaderDeadline(Duration limit) {
        this.limitNanos = limit.toNanos();
    }

    @Override
    public void onOpened(Connection connection) {
        if (connection instanceof HttpConnection) open.put(connection, new long[1]);
    }

    @Override
    public void onClosed(Connection connection) {
        open.remove(connection);
    }

    @Override
    protected void doStart() {
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-header-deadline");
            t.setDaemon(true);
            return t;
        });
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP.toMillis(), SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() {
        sweeper.shutdownNow();
        open.clear();
    }

    void sweep() {
        long now = System.nanoTime();
        open.forEach((connection, since) -> {
            HttpParser parser = ((HttpConnection) connection).getParser();
            boolean inHeaders = parser.inHeaderState() && !parser.isStart();
            if (!inHeaders) {
                since[0] = 0;
            } else if (since[0] == 0) {
                since[0] = now;
            } else if (now - since[0] > limitNanos) {
                open.remove(connection);
                connection
                        .getEndPoint()
                        .close(); // not connection.close(): that answers the half-read request with a 500
            }
        });
    }
}
