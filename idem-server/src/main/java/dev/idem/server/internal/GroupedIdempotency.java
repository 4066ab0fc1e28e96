package dev.idem.server.internal;

import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyWindow;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The grouped path of {@link RequestIdempotency#runGrouped} with a key: the key taken, the mutation done and its
 * response stored in the one grouped transaction. A small, frequent create then needs no write transaction of its own
 * for the key, and nothing of it is left when the group rolls back. Whatever finds the key in use goes the
 * claimed-first way instead, so a key's contention is answered alike on both paths.
 */
final class GroupedIdempotency {
    /** A grouped work's answer when its key was not free in its transaction: nothing of it was written. */
    private static final ApiResponse KEY_TAKEN = new ApiResponse(409, Json.object(), Map.of());

    private final Store store;
    private final Clock clock;
    /** The keys (project, mode, key) of this node's grouped requests between their start and their answer. */
    private final ConcurrentHashMap<String, Boolean> running = new ConcurrentHashMap<>();

    GroupedIdempotency(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /**
     * Runs {@code work} under {@code key} in a grouped transaction. A key found used (read first, never waited on) or
     * not free in the group's transaction (taken earlier in the group, or meanwhile by a request now committed) is left
     * to {@code claimedFirst}: the first response replayed, 409 {@code idempotency_key_reuse} or {@code
     * idempotency_in_progress}. A key another request of this node holds meanwhile is answered 409 {@code
     * idempotency_in_progress} at once, as its in-progress record would be.
     *
     * @param work the mutation done and its response stored under the key, in the transaction it is given
     * @param claimedFirst the request run the claimed-first way, for a key found in use
     * @return the response to send, or null when a stored one was replayed
     */
    ApiResponse run(
            Context ctx,
            Tenant tenant,
            String key,
            String fingerprint,
            Function<StoreTx, ApiResponse> work,
            Supplier<ApiResponse> claimedFirst) {
        String runningKey = tenant.projectId() + '\n' + tenant.mode() + '\n' + key;
        if (running.putIfAbsent(runningKey, Boolean.TRUE) != null) throw IdempotencyKeys.inProgress();
        try {
            // read before anything waits on it, as claim does: a key held by a request still committing is a 409 now
            Optional<IdempotencyRecord> found =
                    store.inReadTransaction(tx -> tx.idempotency().find(tenant, key));
            if (found.isPresent()) {
                IdempotencyRecord r = found.get();
                // a completed request's answer needs no write: replayed (or refused) from what was read
                if (r.completed() && !IdempotencyWindow.expired(r.createdAt(), clock.instant())) {
                    if (!r.fingerprint().equals(fingerprint)) throw IdempotencyKeys.keyReuse();
                    IdempotencyKeys.replayed(ctx, new IdempotencyKeys.Claim(r, null, null));
                    return null;
                }
                return claimedFirst.get();
            }
            ApiResponse response = store.inGroupCommit(tx -> {
                Instant now = clock.instant();
                // in a group, answered at once and written with the group's other keys in one statement
                if (!tx.idempotency()
                        .tryInsert(new IdempotencyRecord(
                                tenant, key, fingerprint, now, IdempotencyKeys.lockFrom(now), null, null)))
                    return KEY_TAKEN;
                return work.apply(tx);
            });
            if (response != KEY_TAKEN) return response;
            return claimedFirst.get();
        } finally {
            running.remove(runningKey);
        }
    }
}
