package dev.idem.server.internal;

import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyWindow;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The {@code Idempotency-Key} records every path of {@link RequestIdempotency} shares: taking a key by an in-progress
 * record, the 409s for a key another request holds or used, storing a response under a key and replaying it, and the
 * in-progress lock's instants. The paths differ in when they take the key and how many transactions follow; what a
 * record means is the same for all of them, so it is decided here once.
 */
final class IdempotencyKeys {
    private final Store store;
    private final Clock clock;

    IdempotencyKeys(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /**
     * What taking a key found: a completed request to replay ({@code done}), or the key taken by this request until
     * {@code lock}, with the progress a previous holder saved before it died ({@link RequestIdempotency#runInSteps}),
     * or null.
     */
    record Claim(IdempotencyRecord done, Instant lock, byte[] progress) {}

    /**
     * Takes the key for this request, or returns the completed record to replay; 409 when it cannot.
     *
     * <p>A key another request holds is answered 409 {@code idempotency_in_progress} at once, never after waiting for
     * that request to commit: the record is read before anything waits on it. Inserting first would wait, on
     * PostgreSQL for the holder's transaction (its uncommitted completion of the record), on SQLite for the single
     * writer the holder's mutation has; either way the wait would end in a replay, and the two stores would answer
     * one race differently. On a store with one writer the read also runs before queueing for that writer.
     */
    Claim claim(Tenant tenant, String key, String fingerprint) {
        if (!store.claimsConcurrently())
            store.inReadTransaction(tx -> {
                tx.idempotency().find(tenant, key).ifPresent(r -> refuseIfHeld(r, clock.instant(), fingerprint));
                return null;
            });
        return store.inTransaction(tx -> {
            Instant now = clock.instant();
            Instant lock = lockFrom(now);
            for (int tries = 0; tries < 3; tries++) {
                Optional<IdempotencyRecord> held = tx.idempotency().find(tenant, key);
                held.ifPresent(r -> refuseIfHeld(r, now, fingerprint));
                if (held.isEmpty()
                        && tx.idempotency()
                                .tryInsert(new IdempotencyRecord(tenant, key, fingerprint, now, lock, null, null)))
                    return new Claim(null, lock, null);
                Optional<IdempotencyRecord> found =
                        held.isPresent() ? held : tx.idempotency().find(tenant, key);
                if (found.isEmpty()) continue;
                IdempotencyRecord r = found.get();
                if (IdempotencyWindow.expired(r.createdAt(), now)) {
                    tx.idempotency().delete(tenant, key);
                    continue;
                }
                if (!r.completed()) {
                    // work of another request already committed under this key (steps of runInSteps): only the same
                    // request may carry it on
                    if (r.responseBody() != null && !r.fingerprint().equals(fingerprint)) throw keyReuse();
                    if (r.lockedUntil() != null
                            && r.lockedUntil().isBefore(now)
                            && tx.idempotency().takeOverExpired(tenant, key, fingerprint, now, lock))
                        return new Claim(null, lock, r.responseBody());
                    throw inProgress();
                }
                if (!r.fingerprint().equals(fingerprint)) throw keyReuse();
                return new Claim(r, null, null);
            }
            throw inProgress();
        });
    }

    /**
     * Lets the key go after the request that took it failed with {@code failure}, so a retry need not wait for its lock
     * to expire. When the store fails this too, the key stays "in progress" until its lock expires, and the caller
     * still answers for the first failure (this one is added to it).
     */
    void release(Tenant tenant, String key, RuntimeException failure) {
        try {
            store.useTransaction(tx -> tx.idempotency().delete(tenant, key));
        } catch (RuntimeException releaseFailed) {
            failure.addSuppressed(releaseFailed);
        }
    }

    /** Stores {@code response} under the key in {@code tx}, the transaction of the mutation that made it. */
    static void complete(StoreTx tx, Tenant tenant, String key, ApiResponse response) {
        tx.idempotency()
                .complete(
                        tenant,
                        key,
                        response.status(),
                        StoredResponse.of(response).encode());
    }

    /** Answers with the stored response when {@code claim} found one; false when the request is to run. */
    static boolean replayed(Context ctx, Claim claim) {
        if (claim.done() == null) return false;
        StoredResponse stored = StoredResponse.decode(claim.done().responseBody());
        stored.headers().forEach(ctx::header);
        ctx.header("Idempotent-Replayed", "true");
        ctx.status(claim.done().responseStatus())
                .contentType("application/json")
                .result(stored.body());
        return true;
    }

    /** Until when a key taken at {@code now} is held: whole milliseconds, as stored (saveProgress compares them). */
    static Instant lockFrom(Instant now) {
        return now.plus(RequestIdempotency.IN_PROGRESS_LOCK).truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * A 409 when {@code r} is held by a request whose lock has not expired: {@code idempotency_key_reuse} when steps of
     * another request already committed under it, else {@code idempotency_in_progress}.
     */
    private static void refuseIfHeld(IdempotencyRecord r, Instant now, String fingerprint) {
        if (r.completed()
                || IdempotencyWindow.expired(r.createdAt(), now)
                || (r.lockedUntil() != null && r.lockedUntil().isBefore(now))) return;
        if (r.responseBody() != null && !r.fingerprint().equals(fingerprint)) throw keyReuse();
        throw inProgress();
    }

    static ApiException keyReuse() {
        return ApiException.conflict(
                "idempotency_key_reuse",
                "This Idempotency-Key was used with another request (method, path or body differ); use a new key");
    }

    static ApiException inProgress() {
        return ApiException.conflict(
                "idempotency_in_progress",
                "A request with this Idempotency-Key is still being processed; retry in a moment");
    }
}
