package dev.idem.server.internal;

import dev.idem.core.IdempotencyRecord;
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
 * Runs a mutation once per {@code Idempotency-Key} (SPEC section 2, "Request idempotency"). The key is
 * first taken by an in-progress record in its own short transaction; the mutation and its stored
 * response then commit together, so a crash between them leaves neither and, once the in-progress lock
 * expires, the key can be used again. Only 2xx responses are stored: an error releases the key.
 */
public final class RequestIdempotency {
    public static final String HEADER = "Idempotency-Key";
    static final Duration RETENTION = Duration.ofHours(24);
    /** A request still "in progress" after this long is taken to have died with its process. */
    static final Duration IN_PROGRESS_LOCK = Duration.ofSeconds(30);
    private final Store store;
    private final Clock clock;
    private final Runnable wakeUp;

    public RequestIdempotency(Store store, Clock clock, Runnable wakeUp) {
        this.store = store;
        this.clock = clock;
        this.wakeUp = wakeUp;
    }

    /** Runs {@code mutation} in one transaction (with the key's record when the header is present) and answers. */
    public void run(Context ctx, Tenant tenant, Function<StoreTx, ApiResponse> mutation) {
        String key = ctx.header(HEADER);
        ApiResponse response;
        if (key == null) {
            response = store.inTransaction(mutation);
        } else {
            if (key.isEmpty() || key.length() > 255)
                throw ApiException.invalid("idempotency_key_invalid", HEADER, "Idempotency-Key must be 1 to 255 characters");
            String fingerprint = fingerprint(ctx.method().name(), ctx.path(), ctx.bodyAsBytes());
            Optional<IdempotencyRecord> replay = claim(tenant, key, fingerprint);
            if (replay.isPresent()) {
                IdempotencyRecord done = replay.get();
                Stored stored = Stored.decode(done.responseBody());
                stored.headers().forEach(ctx::header);
                ctx.header("Idempotent-Replayed", "true");
                ctx.status(done.responseStatus()).contentType("application/json").result(stored.body());
                return;
            }
            try {
                response = store.inTransaction(tx -> {
                    ApiResponse r = mutation.apply(tx);
                    tx.idempotency().complete(tenant, key, r.status(), new Stored(r.headers(), Json.bytes(r.body())).encode());
                    return r;
                });
            } catch (RuntimeException e) {
                try {
                    store.useTransaction(tx -> tx.idempotency().delete(tenant, key));
                } catch (RuntimeException releaseFailed) {
                    // the store is failing: the key stays "in progress" until its lock expires; answer for the first failure
                    e.addSuppressed(releaseFailed);
                }
                throw e;
            }
        }
        if (response.wakeEngine()) wakeUp.run();
        response.headers().forEach(ctx::header);
        ctx.status(response.status()).contentType("application/json").result(Json.bytes(response.body()));
    }

    /** Takes the key for this request, or returns the completed record to replay; 409 when it cannot. */
    private Optional<IdempotencyRecord> claim(Tenant tenant, String key, String fingerprint) {
        return store.inTransaction(tx -> {
            Instant now = clock.instant();
            Instant lock = now.plus(IN_PROGRESS_LOCK);
            for (int tries = 0; tries < 3; tries++) {
                if (tx.idempotency().tryInsert(new IdempotencyRecord(tenant, key, fingerprint, now, lock, null, null))) return Optional.empty();
                Optional<IdempotencyRecord> found = tx.idempotency().find(tenant, key);
                if (found.isEmpty()) continue;
                IdempotencyRecord r = found.get();
                if (r.createdAt().isBefore(now.minus(RETENTION))) {
                    tx.idempotency().delete(tenant, key);
                    continue;
                }
                if (!r.completed()) {
                    if (r.lockedUntil() != null && r.lockedUntil().isBefore(now)
                            && tx.idempotency().takeOverExpired(tenant, key, fingerprint, now, lock)) return Optional.empty();
                    throw ApiException.conflict("idempotency_in_progress",
                            "A request with this Idempotency-Key is still being processed; retry in a moment");
                }
                if (!r.fingerprint().equals(fingerprint))
                    throw ApiException.conflict("idempotency_key_reuse",
                            "This Idempotency-Key was used with another request (method, path or body differ); use a new key");
                return Optional.of(r);
            }
            throw ApiException.conflict("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry in a moment");
        });
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
            Json.parseStored(new String(stored, 0, nl, StandardCharsets.UTF_8)).fields()
                    .forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
            return new Stored(headers, java.util.Arrays.copyOfRange(stored, Math.min(nl + 1, stored.length), stored.length));
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
