package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.Function;

/**
 * Runs a mutation once per {@code Idempotency-Key} (docs/api.md, "Three kinds of idempotency"). A grouped mutation
 * (a create, a message: {@link #runGrouped}) takes the key, does its work and stores its response in one grouped
 * transaction ({@link GroupedIdempotency}), so a crash before its COMMIT leaves none of them. Any other takes the key
 * by an in-progress record in its own short transaction first ({@link IdempotencyKeys#claim}); the mutation and its
 * stored response then commit together, so a crash between them leaves neither and, once the in-progress lock
 * expires, the key can be used again. A mutation too large for one transaction runs in steps
 * ({@link SteppedIdempotency}). Only 2xx responses are stored: an error releases the key.
 */
public final class RequestIdempotency {
    public static final String HEADER = "Idempotency-Key";
    /** A request still "in progress" after this long is taken to have died with its process. */
    static final Duration IN_PROGRESS_LOCK = Duration.ofSeconds(30);

    private final Store store;
    private final Clock clock;
    private final IdGenerator auditIds;
    private final IdempotencyKeys keys;
    private final GroupedIdempotency grouped;
    private final SteppedIdempotency stepped;

    public RequestIdempotency(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.auditIds = new IdGenerator(clock, new SecureRandom());
        this.keys = new IdempotencyKeys(store, clock);
        this.grouped = new GroupedIdempotency(store, clock);
        this.stepped = new SteppedIdempotency(store, clock, keys);
    }

    /** Runs {@code mutation} in one transaction (with the key's record when the header is present) and answers. */
    public void run(Context ctx, Tenant tenant, Function<StoreTx, ApiResponse> mutation) {
        run(ctx, tenant, mutation, false);
    }

    /**
     * As {@link #run}, the transaction shared with other requests' grouped mutations ({@link Store#inGroupCommit}):
     * for the small, frequent creates (a schedule, a message), whose answer still follows their own commit. The
     * mutation may run twice (when a neighbour in its group fails), so it must do nothing outside the transaction.
     */
    public void runGrouped(Context ctx, Tenant tenant, Function<StoreTx, ApiResponse> mutation) {
        run(ctx, tenant, mutation, true);
    }

    private void run(Context ctx, Tenant tenant, Function<StoreTx, ApiResponse> mutation, boolean grouped) {
        String key = ctx.header(HEADER);
        ApiResponse response;
        if (key == null) {
            response = transaction(grouped, tx -> audited(ctx, tx, mutation));
        } else {
            String fingerprint = fingerprint(ctx, key);
            Function<StoreTx, ApiResponse> work = tx -> doneAndStored(ctx, tx, tenant, key, mutation);
            response = grouped
                    ? this.grouped.run(
                            ctx,
                            tenant,
                            key,
                            fingerprint,
                            work,
                            () -> claimedFirst(ctx, tenant, key, fingerprint, work, true))
                    : claimedFirst(ctx, tenant, key, fingerprint, work, false);
            if (response == null) return;
        }
        answer(ctx, response);
    }

    /**
     * The key taken by an in-progress record in a transaction of its own, then {@code work} (the mutation and its
     * stored response) committed in one transaction; a failure releases the key.
     *
     * @return the response to send, or null when a stored one was replayed
     */
    private ApiResponse claimedFirst(
            Context ctx,
            Tenant tenant,
            String key,
            String fingerprint,
            Function<StoreTx, ApiResponse> work,
            boolean grouped) {
        if (IdempotencyKeys.replayed(ctx, keys.claim(tenant, key, fingerprint))) return null;
        try {
            return transaction(grouped, work);
        } catch (RuntimeException e) {
            keys.release(tenant, key, e);
            throw e;
        }
    }

    /** The mutation done (and audited) in {@code tx}, its response stored under the key in the same transaction. */
    private ApiResponse doneAndStored(
            Context ctx, StoreTx tx, Tenant tenant, String key, Function<StoreTx, ApiResponse> mutation) {
        ApiResponse r = audited(ctx, tx, mutation);
        IdempotencyKeys.complete(tx, tenant, key, r);
        return r;
    }

    private <T> T transaction(boolean grouped, Function<StoreTx, T> work) {
        return grouped ? store.inGroupCommit(work) : store.inTransaction(work);
    }

    /** The mutation's response; a change a portal session made is recorded in the same transaction. */
    private ApiResponse audited(Context ctx, StoreTx tx, Function<StoreTx, ApiResponse> mutation) {
        return PortalAudit.record(ctx, tx, mutation.apply(tx), auditIds, clock.instant());
    }

    /** A step; the last one (with the response) records a change a portal session made, in its transaction. */
    private Step auditedStep(Context ctx, StoreTx tx, Steps steps, ObjectNode state) {
        Step s = steps.step(tx, state);
        if (s.response() != null) PortalAudit.record(ctx, tx, s.response(), auditIds, clock.instant());
        return s;
    }

    static void answer(Context ctx, ApiResponse response) {
        response.headers().forEach(ctx::header);
        ctx.status(response.status()).contentType("application/json").result(Json.bytes(response.body()));
    }

    private static String fingerprint(Context ctx, String key) {
        if (key.isEmpty() || key.length() > 255)
            throw ApiException.invalid(
                    "idempotency_key_invalid", HEADER, "Idempotency-Key must be 1 to 255 characters");
        return fingerprint(ctx.method().name(), ctx.path(), ctx.bodyAsBytes());
    }

    /**
     * A mutation too large for one transaction (a bulk replay of thousands), run as steps, each in a transaction of
     * its own, carrying a JSON state from one step to the next.
     */
    public interface Steps {
        /** The state before the first step (taken once per request, not again when a retry carries on). */
        ObjectNode start();

        /** One step, in its own transaction: the state after it, and the response when it was the last. */
        Step step(StoreTx tx, ObjectNode state);
    }

    /** @param response null while more steps are to come */
    public record Step(ObjectNode state, ApiResponse response) {}

    /**
     * Runs {@code steps} until one answers. With an {@code Idempotency-Key}, every step's transaction also saves the
     * state after it in the key's record and moves the key's lock on (fenced: a holder whose lock was taken over rolls
     * back), and the last step's stores the response. So a retry after a failure or a crash part-way carries on from
     * the last committed step (the state says where) instead of doing the committed steps again, and a retry after
     * the end replays the response as {@link #run} does. A failure releases the lock at once (keeping the progress);
     * a crash leaves it to expire {@link #IN_PROGRESS_LOCK} after the last step, until when a retry gets 409
     * {@code idempotency_in_progress}.
     */
    public void runInSteps(Context ctx, Tenant tenant, Steps steps) {
        String key = ctx.header(HEADER);
        if (key != null) {
            stepped.run(
                    ctx, tenant, key, fingerprint(ctx, key), steps, (tx, state) -> auditedStep(ctx, tx, steps, state));
            return;
        }
        ObjectNode state = steps.start();
        while (true) {
            ObjectNode at = state;
            Step step = store.inTransaction(tx -> auditedStep(ctx, tx, steps, at));
            if (step.response() != null) {
                answer(ctx, step.response());
                return;
            }
            state = step.state();
        }
    }

    static String fingerprint(String method, String path, byte[] body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((method + "\n" + path + "\n").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
