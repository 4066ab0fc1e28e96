package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyWindow;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs a mutation once per {@code Idempotency-Key} (docs/api.md, "Three kinds of idempotency"). A grouped mutation
 * (a create, a message: {@link #runGrouped}) takes the key, does its work and stores its response in one grouped
 * transaction, so a crash before its COMMIT leaves none of them. Any other takes the key by an in-progress record in
 * its own short transaction first; the mutation and its stored response then commit together, so a crash between them
 * leaves neither and, once the in-progress lock expires, the key can be used again. Only 2xx responses are stored: an
 * error releases the key.
 */
public final class RequestIdempotency {
    public static final String HEADER = "Idempotency-Key";
    /** A request still "in progress" after this long is taken to have died with its process. */
    static final Duration IN_PROGRESS_LOCK = Duration.ofSeconds(30);

    private final Store store;
    private final Clock clock;

    private final dev.idem.core.IdGenerator auditIds;
    /** The keys (project, mode, key) of this node's grouped requests between their start and their answer. */
    private final java.util.concurrent.ConcurrentHashMap<String, Boolean> running =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** A grouped work's answer when its key was not free in its transaction: nothing of it was written. */
    private static final ApiResponse KEY_TAKEN = new ApiResponse(409, Json.object(), java.util.Map.of());

    public RequestIdempotency(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.auditIds = new dev.idem.core.IdGenerator(clock, new java.security.SecureRandom());
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
        } else if (grouped) {
            response = inOneGroupedTransaction(ctx, tenant, key, fingerprint(ctx, key), mutation);
            if (response == null) return;
        } else {
            response = claimedFirst(ctx, tenant, key, fingerprint(ctx, key), mutation, false);
            if (response == null) return;
        }
        answer(ctx, response);
    }

    /**
     * The key taken, the mutation done and its response stored in the one grouped transaction: no write transaction of
     * its own for the key, and nothing of it left when the group rolls back. A key found used (read first, never
     * waited on) or not free in the group's transaction (taken earlier in the group, or meanwhile by a request now
     * committed) is answered as {@link #claimedFirst} does: the first response replayed, 409 {@code
     * idempotency_key_reuse} or {@code idempotency_in_progress}. A key another request of this node holds meanwhile is
     * answered 409 {@code idempotency_in_progress} at once, as its in-progress record would be.
     *
     * @return the response to send, or null when a stored one was replayed
     */
    private ApiResponse inOneGroupedTransaction(
            Context ctx, Tenant tenant, String key, String fingerprint, Function<StoreTx, ApiResponse> mutation) {
        String running = tenant.projectId() + '\n' + tenant.mode() + '\n' + key;
        if (this.running.putIfAbsent(running, Boolean.TRUE) != null) throw inProgress();
        try {
            // read before anything waits on it, as claim does: a key held by a request still committing is a 409 now
            Optional<IdempotencyRecord> found =
                    store.inReadTransaction(tx -> tx.idempotency().find(tenant, key));
            if (found.isPresent()) {
                IdempotencyRecord r = found.get();
                // a completed request's answer needs no write: replayed (or refused) from what was read
                if (r.completed() && !IdempotencyWindow.expired(r.createdAt(), clock.instant())) {
                    if (!r.fingerprint().equals(fingerprint)) throw keyReuse();
                    replayed(ctx, new Claim(r, null, null));
                    return null;
                }
                return claimedFirst(ctx, tenant, key, fingerprint, mutation, true);
            }
            ApiResponse response = store.inGroupCommit(tx -> {
                Instant now = clock.instant();
                // in a group, answered at once and written with the group's other keys in one statement
                if (!tx.idempotency()
                        .tryInsert(new IdempotencyRecord(tenant, key, fingerprint, now, lockFrom(now), null, null)))
                    return KEY_TAKEN;
                return doneAndStored(ctx, tx, tenant, key, mutation);
            });
            if (response != KEY_TAKEN) return response;
            return claimedFirst(ctx, tenant, key, fingerprint, mutation, true);
        } finally {
            this.running.remove(running);
        }
    }

    /**
     * The key taken by an in-progress record in a transaction of its own, then the mutation and its stored response
     * committed together; a failure releases the key.
     *
     * @return the response to send, or null when a stored one was replayed
     */
    private ApiResponse claimedFirst(
            Context ctx,
            Tenant tenant,
            String key,
            String fingerprint,
            Function<StoreTx, ApiResponse> mutation,
            boolean grouped) {
        if (replayed(ctx, claim(tenant, key, fingerprint))) return null;
        try {
            return transaction(grouped, tx -> doneAndStored(ctx, tx, tenant, key, mutation));
        } catch (RuntimeException e) {
            try {
                store.useTransaction(tx -> tx.idempotency().delete(tenant, key));
            } catch (RuntimeException releaseFailed) {
                // the store is failing: the key stays "in progress" until
                // its lock expires; answer for the first failure
                e.addSuppressed(releaseFailed);
            }
            throw e;
        }
    }

    /** The mutation done (and audited) in {@code tx}, its response stored under the key in the same transaction. */
    private ApiResponse doneAndStored(
            Context ctx, StoreTx tx, Tenant tenant, String key, Function<StoreTx, ApiResponse> mutation) {
        ApiResponse r = audited(ctx, tx, mutation);
        tx.idempotency().complete(tenant, key, r.status(), new Stored(r.headers(), Json.bytes(r.body())).encode());
        return r;
    }

    /** Until when a key taken at {@code now} is held: whole milliseconds, as stored (saveProgress compares them). */
    private static Instant lockFrom(Instant now) {
        return now.plus(IN_PROGRESS_LOCK).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
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

    private static void answer(Context ctx, ApiResponse response) {
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
        if (key == null) {
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
        Claim claim = claim(tenant, key, fingerprint(ctx, key));
        if (replayed(ctx, claim)) return;
        ObjectNode state = claim.progress() == null ? steps.start() : Json.parseObject(claim.progress());
        Instant lock = claim.lock();
        byte[] saved = claim.progress();
        try {
            while (true) {
                ObjectNode at = state;
                Instant held = lock;
                Instant next = lockFrom(clock.instant());
                Step step = store.inTransaction(tx -> {
                    Step s = auditedStep(ctx, tx, steps, at);
                    if (!tx.idempotency().saveProgress(tenant, key, Json.bytes(s.state()), held, next))
                        throw ApiException.conflict(
                                "idempotency_in_progress",
                                "This request's Idempotency-Key was taken over by a retry "
                                        + "while this one was slow; the retry carries on from here");
                    if (s.response() != null)
                        tx.idempotency()
                                .complete(
                                        tenant,
                                        key,
                                        s.response().status(),
                                        new Stored(
                                                        s.response().headers(),
                                                        Json.bytes(s.response().body()))
                                                .encode());
                    return s;
                });
                lock = next;
                saved = Json.bytes(step.state());
                if (step.response() != null) {
                    answer(ctx, step.response());
                    return;
                }
                state = step.state();
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
                                clock.instant().minusMillis(1).truncatedTo(java.time.temporal.ChronoUnit.MILLIS)));
            } catch (RuntimeException releaseFailed) {
                e.addSuppressed(releaseFailed);
            }
            throw e;
        }
    }

    /** Answers with the stored response when {@code claim} found one; false when the request is to run. */
    private static boolean replayed(Context ctx, Claim claim) {
        if (claim.done() == null) return false;
        Stored stored = Stored.decode(claim.done().responseBody());
        stored.headers().forEach(ctx::header);
        ctx.header("Idempotent-Replayed", "true");
        ctx.status(claim.done().responseStatus())
                .contentType("application/json")
                .result(stored.body());
        return true;
    }

    /**
     * What taking a key found: a completed request to replay ({@code done}), or the key taken by this request until
     * {@code lock}, with the progress a previous holder saved before it died ({@link #runInSteps}), or null.
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
    private Claim claim(Tenant tenant, String key, String fingerprint) {
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

    private static ApiException keyReuse() {
        return ApiException.conflict(
                "idempotency_key_reuse",
                "This Idempotency-Key was used with another request (method, path or body differ); use a new key");
    }

    private static ApiException inProgress() {
        return ApiException.conflict(
                "idempotency_in_progress",
                "A request with this Idempotency-Key is still being processed; retry in a moment");
    }

    /**
     * A stored response: its extra headers as one line of compact JSON, a newline, then the body's bytes
     * exactly as first sent (compact JSON never contains a raw newline, so the first one splits them).
     */
    record Stored(java.util.Map<String, String> headers, byte[] body) {
        byte[] encode() {
            byte[] h = Json.bytes(Json.MAPPER.valueToTree(new java.util.TreeMap<>(headers)));
            byte[] out = new byte[h.length + 1 + body.length];
            System.arraycopy(h, 0, out, 0, h.length);
            out[h.length] = '\n';
            System.arraycopy(body, 0, out, h.length + 1, body.length);
            return out;
        }

        static Stored decode(byte[] stored) {
            int nl = 0;
            while (nl < stored.length && stored[nl] != '\n') nl++;
            java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
            Json.parseStored(new String(stored, 0, nl, StandardCharsets.UTF_8))
                    .fields()
                    .forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
            return new Stored(
                    headers, java.util.Arrays.copyOfRange(stored, Math.min(nl + 1, stored.length), stored.length));
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
