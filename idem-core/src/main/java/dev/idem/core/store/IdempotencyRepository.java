package dev.idem.core.store;

import dev.idem.core.DedupClaim;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Optional;

/**
 * Request idempotency records and {@code dedup_id} reservations, scoped by (tenant, key). The two share one unique key
 * (a reservation's key contains a newline, a request's cannot), so one pruner ({@link #pruneCreatedBefore}) keeps both
 * to their window ({@link dev.idem.core.IdempotencyWindow}).
 */
public interface IdempotencyRepository {
    Optional<IdempotencyRecord> find(Tenant tenant, String key);

    /** Inserts an in-progress record unless one exists for (tenant, key); true when inserted. */
    boolean tryInsert(IdempotencyRecord record);

    /**
     * Takes over an in-progress record whose {@code lockedUntil} is before {@code now} (its holder
     * died), setting a new fingerprint and lock; true when taken.
     */
    boolean takeOverExpired(Tenant tenant, String key, String fingerprint, Instant now, Instant lockedUntil);

    /**
     * Saves the progress of an in-progress request done in several transactions (kept where the response will be)
     * and moves its lock, only while the caller still holds it ({@code locked_until} is still {@code expectedLock}):
     * a holder whose lock expired and was taken over gets false and must roll back.
     */
    boolean saveProgress(Tenant tenant, String key, byte[] progress, Instant expectedLock, Instant newLock);

    /** Stores the response of a completed request. */
    void complete(Tenant tenant, String key, int status, byte[] body);

    /** Deletes the record (a request that failed with a 5xx releases its key). */
    void delete(Tenant tenant, String key);

    /** Inserts {@code claim} unless a record or reservation exists for its (tenant, key); true when inserted. */
    boolean tryInsertDedup(DedupClaim claim);

    /** The reservation under (tenant, key), if any. */
    Optional<DedupClaim> findDedup(Tenant tenant, String key);

    /** Deletes the reservation under (tenant, key) (an expired one, about to be replaced). */
    void deleteDedup(Tenant tenant, String key);

    /** Deletes up to {@code limit} records and reservations created before {@code before}; returns how many. */
    int pruneCreatedBefore(Instant before, int limit);
}
