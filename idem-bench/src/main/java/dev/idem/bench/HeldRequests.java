package dev.idem.bench;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests a loopback receiver has read and holds unanswered while it hangs (an endpoint that never answers),
 * each answered 200 on {@link #release()}; what a hanging receiver of the engine benchmark and of the fan-out one share.
 */
final class HeldRequests {
    private final Set<HttpExchange> held = ConcurrentHashMap.newKeySet();
    private volatile boolean hang;

    HeldRequests(boolean hang) {
        this.hang = hang;
    }

    boolean hanging() {
        return hang;
    }

    /** Holds {@code ex} unanswered; answers it at once when a {@link #release()} came between. */
    void hold(HttpExchange ex) {
        held.add(ex);
        if (!hang) answer(ex);
    }

    /** Answers every held request now, and stops holding new ones. */
    void release() {
        hang = false;
        for (HttpExchange ex : held) answer(ex);
    }

    /** Holds new requests again (after a {@link #release()}). */
    void hangAgain() {
        hang = true;
    }

    /** Answers {@code ex} 200 with no body and closes it. */
    void answer(HttpExchange ex) {
        held.remove(ex);
        try {
            ex.sendResponseHeaders(200, -1);
        } catch (IOException e) {
            // the sender gave up on this request (its timeout): the connection is gone
        } finally {
            ex.close();
        }
    }

    /** Drops every held request unanswered (the receiver is closing). */
    void close() {
        for (HttpExchange ex : held) ex.close();
    }
}
