package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.BiFunction;

/**
 * The stepped path of {@link RequestIdempotency#runInSteps} with a key. Every step's transaction also saves the state
 * after it in the key's record and moves the key's lock on, fenced: a holder whose lock a retry took over (it was slow
 * past {@link RequestIdempotency#IN_PROGRESS_LOCK}) rolls back instead of doing a step the retry does too. The last
 * step's transaction stores the response.
 */
final class SteppedIdempotency {
    private final Store store;
    private final Clock clock;
    private final IdempotencyKeys keys;

    SteppedIdempotency(Store store, Clock clock, IdempotencyKeys keys) {
        this.store = store;
        this.clock = clock;
        this.keys = keys;
    }

    /**
     * Runs {@code steps} under {@code key} from where the key's record says the last holder stopped, until one answers;
     * a completed request's response is replayed instead. A failure releases the lock at once, keeping the progress.
     *
     * @param step one step done (and audited) in the transaction it is given
     */
    void run(
            Context ctx,
            Tenant tenant,
            String key,
            String fingerprint,
            RequestIdempotency.Steps steps,
            BiFunction<StoreTx, ObjectNode, RequestIdempotency.Step> step) {
        IdempotencyKeys.Claim claim = keys.claim(tenant, key, fingerprint);
        if (IdempotencyKeys.replayed(ctx, claim)) return;
        ObjectNode state = claim.progress() == null ? steps.start() : Json.parseObject(claim.progress());
        Instant lock = claim.lock();
        byte[] saved = claim.progress();
        try {
            while (true) {
                ObjectNode at = state;
                Instant held = lock;
                Instant next = IdempotencyKeys.lockFrom(clock.instant());
                RequestIdempotency.Step done = store.inTransaction(tx -> {
                    RequestIdempotency.Step s = step.apply(tx, at);
                    if (!tx.idempotency().saveProgress(tenant, key, Json.bytes(s.state()), held, next))
                        throw ApiException.conflict(
                                "idempotency_in_progress",
                                "This request's Idempotency-Key was taken over by a retry "
                                        + "while this one was slow; the retry carries on from here");
                    if (s.response() != null) IdempotencyKeys.complete(tx, tenant, key, s.response());
                    return s;
                });
                lock = next;
                saved = Json.bytes(done.state());
                if (done.response() != null) {
                    RequestIdempotency.answer(ctx, done.response());
                    return;
                }
                state = done.state();
            }
        } catch (RuntimeException e) {
            byte[] progress = saved;
            Instant held = lock;
            try {
                // keep what committed, and let a retry take the key now rather than when the lock expires
                store.useTransaction(tx -> tx.idempotency()
                        .saveProgress(
                                tenant,
                                key,
                                progress,
                                held,
                                clock.instant().minusMillis(1).truncatedTo(ChronoUnit.MILLIS)));
            } catch (RuntimeException releaseFailed) {
                e.addSuppressed(releaseFailed);
            }
            throw e;
        }
    }
}
