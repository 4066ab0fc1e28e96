package dev.idem.engine.internal;

import dev.idem.engine.EndpointGuard;
import dev.idem.engine.internal.AttemptResult.Congestion;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpHostConnectException;
import org.apache.hc.core5.http.ConnectionClosedException;

/**
 * How {@link HttpSender} classifies what happened on the wire: an answer or a failure as an {@link AttemptResult}
 * with its congestion signal, an exception as the error text users read, and the headers it refuses to send.
 */
final class SendOutcomes {
    private SendOutcomes() {}

    /** The attempt answered with {@code r}: 2xx succeeded; 3xx (never followed), 4xx and 5xx failed. */
    static AttemptResult answer(Instant startedAt, long t0, LimitedResponseConsumer.Response r, Clock clock) {
        long ms = elapsedMs(t0);
        int status = r.status();
        if (status >= 200 && status < 300)
            return new AttemptResult(startedAt, ms, status, null, r.body(), Optional.empty(), true, Congestion.ANSWER);
        Optional<Duration> retryAfter =
                (status == 429 || status == 503) ? RetryAfter.parse(r.retryAfter(), clock.instant()) : Optional.empty();
        String error = status >= 300 && status < 400
                ? "HTTP " + status + ": redirect not followed"
                        + (r.location() == null ? "" : " (Location: " + r.location() + ")")
                : "HTTP " + status;
        // a 5xx is the path failing (shrink it, as a timeout does); the host answered, so it keeps its connections
        Congestion signal =
                status >= 500 ? Congestion.SERVER_ERROR : status == 429 ? Congestion.BACK_OFF : Congestion.ANSWER;
        return new AttemptResult(startedAt, ms, status, error, r.body(), retryAfter, true, signal);
    }

    static AttemptResult failure(Instant startedAt, long t0, String error, boolean noConnection) {
        // a refused host (the guard) sent nothing and says nothing about the destination's health; no connection at
        // all is the host's trouble, whatever the path; a timeout or reset on a connection is the path's
        Congestion signal = error.startsWith("endpoint refused") || error.startsWith("request could not")
                ? Congestion.NONE
                : noConnection ? Congestion.UNREACHABLE : Congestion.DROP;
        return new AttemptResult(startedAt, elapsedMs(t0), null, error, null, Optional.empty(), true, signal);
    }

    /** What {@code java.net.http} would refuse too: a name that is not a token, a value with a line break. */
    static String headerRefusal(String name, String value) {
        if (name.isEmpty()) return "empty name";
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 127 || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) return "the name is not an HTTP token";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0 || c > 0xff)
                return "the value holds a line break or a character outside Latin-1";
        }
        return null;
    }

    /**
     * Whether the attempt never had a connection: refused, unreachable, a connect timeout, a name that does not resolve,
     * a TLS handshake that failed. A response timeout is not among them, even one that expired while connecting.
     */
    static boolean noConnection(Throwable t) {
        return t instanceof java.net.UnknownHostException
                || t instanceof ConnectTimeoutException
                || t instanceof ConnectException
                || t instanceof HttpHostConnectException
                || t instanceof javax.net.ssl.SSLException;
    }

    static String describe(Throwable t, URI uri, Duration timeout, Duration connectTimeout) {
        String target = uri.getHost() + ":"
                + (uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
        if (t instanceof EndpointGuard.RefusedHostException) return "endpoint refused at connect: " + t.getMessage();
        if (t instanceof java.net.UnknownHostException)
            return "connection failed: host '" + uri.getHost() + "' does not resolve";
        if (t instanceof ConnectTimeoutException)
            return "connect timeout: no connection to " + target + " within " + connectTimeout.toMillis() + "ms";
        if (t instanceof SocketTimeoutException) return "timeout: no response within " + timeout.toMillis() + "ms";
        if (t instanceof ConnectException || t instanceof HttpHostConnectException)
            return "connection failed: could not connect to " + target + " (refused or unreachable)";
        if (t instanceof ConnectionClosedException)
            return "I/O error talking to " + target + ": the connection closed without a response";
        if (t instanceof javax.net.ssl.SSLException) return "TLS handshake with " + target + " failed: " + message(t);
        if (t instanceof IOException) return "I/O error talking to " + target + ": " + message(t);
        return "request failed: " + message(t);
    }

    static String message(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String m = root.getMessage();
        return root.getClass().getSimpleName() + (m == null ? "" : " (" + m + ")");
    }

    private static long elapsedMs(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
