package dev.idem.core;

import dev.idem.wire.KeyWindow;
import java.time.Duration;
import java.time.Instant;

/**
 * How long Idem remembers a caller's key (docs/api.md "Three kinds of idempotency"): an
 * {@code Idempotency-Key} replays its first response for {@link #LENGTH} from its first use, and a {@code dedup_id}
 * (users' and internal one-shots': source events, alerts) returns its first schedule for {@link #LENGTH} from the
 * first create ({@link DedupReservation}). Both kinds of row live in the request-idempotency table; the pruner deletes
 * them once past it.
 *
 * <p>The value is idem-wire's {@link KeyWindow#LENGTH}, which the client's outbox reads too (it depends on idem-wire
 * only). Other 24 h values are other promises: a schedule's default {@code retry.max_age} ({@link RetryPolicy#DEFAULT}),
 * a secret's rotation overlap ({@link SecretRotation#OVERLAP}).
 */
public final class IdempotencyWindow {
    /** 24 hours: {@link KeyWindow#LENGTH}. */
    public static final Duration LENGTH = KeyWindow.LENGTH;

    private IdempotencyWindow() {}

    /** Whether a key first used at {@code firstUse} is forgotten at {@code now} (more than {@link #LENGTH} ago). */
    public static boolean expired(Instant firstUse, Instant now) {
        return firstUse.isBefore(now.minus(LENGTH));
    }
}
