package dev.idem.core;

import java.util.Objects;

/**
 * The key a dedup reservation ({@link DedupReservation}) is held under. Each kind of creator has its own namespace, so
 * a user's {@code dedup_id} never meets an internal one-shot's, nor one origin's or source's another's. Every key holds a
 * newline, which no {@code Idempotency-Key} header can, so a reservation never meets a request's
 * {@link IdempotencyRecord} although both share one unique key in the store.
 *
 * @param value the key as stored
 */
public record DedupKey(String value) {
    public DedupKey {
        Objects.requireNonNull(value, "value");
        if (value.indexOf('\n') < 0)
            throw new IllegalArgumentException("a dedup reservation key must contain a newline: " + value);
    }

    /** A user's {@code dedup_id} on a schedule create. */
    public static DedupKey ofSchedule(String dedupId) {
        return new DedupKey("dedup\n" + Objects.requireNonNull(dedupId, "dedupId"));
    }

    /** A user's {@code dedup_id} on a message create (fan-out): apart from schedules' dedup ids. */
    public static DedupKey ofMessage(String dedupId) {
        return new DedupKey("message-dedup\n" + Objects.requireNonNull(dedupId, "dedupId"));
    }

    /** An internal one-shot's dedup id ({@link InternalOneShots.Request#dedupId()}), apart per origin kind and source. */
    public static DedupKey ofInternal(Origin origin, String dedupId) {
        return new DedupKey("internal-dedup\n" + origin.kind().wireName() + "\n"
                + (origin.sourceId() == null ? "" : origin.sourceId()) + "\n"
                + Objects.requireNonNull(dedupId, "dedupId"));
    }
}
