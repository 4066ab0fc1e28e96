package dev.idem.core;

import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.Optional;

/**
 * Enqueue dedup: a key reserved for {@link IdempotencyWindow#LENGTH} by the first object that claimed it. The
 * reservation ({@link DedupClaim}) is a row under a unique key, in a namespace no {@code Idempotency-Key} header can
 * reach (its keys contain a newline), so two concurrent transactions reserving one key cannot both win: on PostgreSQL
 * the second waits for the first to commit and then finds its row.
 */
public final class DedupReservation {
    private DedupReservation() {}

    /**
     * Reserves {@code key} for {@code holderId} until {@link IdempotencyWindow#LENGTH} after {@code now}, or returns the
     * id that holds it. An expired reservation is replaced.
     *
     * @return empty when this call reserved the key; else the id of the holder
     */
    public static Optional<String> reserve(StoreTx tx, Tenant tenant, DedupKey key, String holderId, Instant now) {
        DedupClaim mine = new DedupClaim(tenant, key.value(), holderId, now);
        for (int tries = 0; tries < 3; tries++) {
            if (tx.idempotency().tryInsertDedup(mine)) return Optional.empty();
            Optional<DedupClaim> held = tx.idempotency().findDedup(tenant, key.value());
            if (held.isEmpty()) continue;
            if (!IdempotencyWindow.expired(held.get().createdAt(), now))
                return Optional.of(held.get().scheduleId());
            tx.idempotency().deleteDedup(tenant, key.value());
        }
        throw new IllegalStateException("dedup reservation did not settle after 3 tries for "
                + key.value().replace('\n', ' '));
    }
}
