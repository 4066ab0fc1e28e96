package dev.idem.core.store;

import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Optional;

/** Request idempotency records, scoped by (tenant, key). */
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

    /** Deletes up to {@code limit} records created before {@code before}; returns how many. */
    int pruneCreatedBefore(Instant before, int limit);
}
