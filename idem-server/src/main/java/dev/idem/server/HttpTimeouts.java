package dev.idem.server;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a client may take to send a request (slow senders must not hold what other requests need).
 *
 * @param headers from the first byte of a request to the end of its header block; a connection that takes longer
 *     is closed (there is no request to answer yet)
 * @param body from the end of the headers to the last byte of the body; a request that takes longer gets a 408 in
 *     the API's error shape and its connection is closed. Bodies are read without holding a request thread, so this
 *     bounds memory and sockets, not threads
 * @param idle how long a connection may stay open with nothing happening (between kept-alive requests, or a client
 *     that stopped reading its response)
 */
public record HttpTimeouts(Duration headers, Duration body, Duration idle) {
    /**
     * 10 s for headers (a header block is one packet for any real client), 20 s for a body (a 256 KiB schedule at
     * 13 KiB/s, a poor mobile link; a 4 MiB batch at 200 KiB/s), 30 s idle (Jetty's default).
     */
    public static final HttpTimeouts DEFAULTS =
            new HttpTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(20), Duration.ofSeconds(30));

    public HttpTimeouts {
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(idle, "idle");
        for (Duration d : new Duration[] {headers, body, idle})
            if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofHours(1)) > 0)
                throw new IllegalArgumentException("HTTP timeouts must be more than 0 and at most 1h, got " + d);
    }
}
