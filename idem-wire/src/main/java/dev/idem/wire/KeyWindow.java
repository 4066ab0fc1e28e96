package dev.idem.wire;

import java.time.Duration;

/**
 * How long Idem remembers a caller's key: an {@code Idempotency-Key} sent to its API replays the first response, and a
 * {@code dedup_id} returns the first schedule, for {@link #LENGTH} from the key's first use (docs/api.md "Three kinds
 * of idempotency"). A request sent again later with the same key is a new request.
 *
 * <p>It lives in the wire contract because both ends depend on it: the server prunes keys past it (idem-core's
 * {@code IdempotencyWindow}), and a client that resends must stop before it (the client's outbox refuses a
 * {@code keyWindow} longer than this).
 */
public final class KeyWindow {
    /** 24 hours. */
    public static final Duration LENGTH = Duration.ofHours(24);

    private KeyWindow() {}
}
