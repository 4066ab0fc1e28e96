package dev.idem.core;

import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Enqueue dedup: a key reserved for 24 hours by the first object that claimed it. The reservation is a row under a
 * unique key in the request-idempotency table, in a namespace no {@code Idempotency-Key} header can reach (its keys
 * contain a newline), so two concurrent transactions reserving one key cannot both win: on PostgreSQL the second
 * waits for the first to commit and then finds its row.
 */
public final class DedupReservation {
    /** How long a reservation holds. */
    public static final Duration WINDOW = Duration.ofHours(24);

    private DedupReservation() {}

    /**
     * Reserves {@code key} for {@code holderId} until {@link #WINDOW} after {@code now}, or returns the id that holds
     * it. An expired reservation is replaced.
     *
     * @param key the full key, namespaced by its caller (it must contain a newline)
     * @return empty when this call reserved the key; else the id of the holder
     */
    public static Optional<String> reserve(StoreTx tx, Tenant tenant, String key, String holderId, Instant now) {
        if (key.indexOf('\n') < 0) throw new IllegalArgumentException("a dedup reservation key must contain a newline: " + key);
        for (int tries = 0; tries < 3; tries++) {
            if (tx.idempotency().tryInsert(new IdempotencyRecord(tenant, key, holderId, now, null, 200, new byte[0]))) return Optional.empty();
            Optional<IdempotencyRecord> held = tx.idempotency().find(tenant, key);
            if (held.isEmpty()) continue;
            if (!held.get().createdAt().isBefore(now.minus(WINDOW))) return Optional.of(held.get().fingerprint());
            tx.idempotency().delete(tenant, key);
        }
        throw new IllegalStateException("dedup reservation did not settle after 3 tries for " + key.replace('\n', ' '));
    }
}
