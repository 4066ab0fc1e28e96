package dev.idem.core;

import java.util.Locale;
import java.util.Objects;

/**
 * Who made a schedule that no user created: Idem itself, for an inbound source's event, an alert or a message's
 * delivery to one endpoint. A schedule made
 * through the API has no origin (null). Such schedules are ordinary one-shots to the engine (claim, retries,
 * dead-letter, replay) but are hidden from the user's schedule lists.
 *
 * @param sourceId the source whose event this is ({@link Kind#SOURCE} only, required there), else null
 */
public record Origin(Kind kind, String sourceId) {
    /**
     * The prefix under which a source's event keeps the provider's request headers ({@code Idem-Source-Header-<name>}):
     * the only {@code Idem-} names a definition's headers may carry, and only on a source's one-shots.
     */
    public static final String SOURCE_HEADER_PREFIX = "Idem-Source-Header-";
    /** The header naming the source on each delivery of its events. */
    public static final String SOURCE_ID_HEADER = "Idem-Source-Id";

    /** What made the schedule. */
    public enum Kind {
        /** An event received on an inbound source's ingest route, forwarded to the source's destination. */
        SOURCE,
        /** An operational alert sent to the project's alert endpoint. */
        ALERT,
        /** A message's delivery to one of the endpoints it fans out to (the delivery names both). */
        MESSAGE;

        /** The stored and API form: {@code source}, {@code alert}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Kind parse(String s) {
            for (Kind k : values()) if (k.wireName().equals(s)) return k;
            throw new IllegalArgumentException("unknown schedule origin '" + s + "'");
        }
    }

    public Origin {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.SOURCE && (sourceId == null || sourceId.isEmpty()))
            throw new IllegalArgumentException("an origin of kind source needs its source id");
        if (kind != Kind.SOURCE && sourceId != null)
            throw new IllegalArgumentException("only an origin of kind source has a source id");
    }

    /** An event of inbound source {@code sourceId}. */
    public static Origin source(String sourceId) {
        return new Origin(Kind.SOURCE, sourceId);
    }

    /** An alert. */
    public static Origin alert() {
        return new Origin(Kind.ALERT, null);
    }

    /** A message's delivery to one endpoint. */
    public static Origin message() {
        return new Origin(Kind.MESSAGE, null);
    }
}
