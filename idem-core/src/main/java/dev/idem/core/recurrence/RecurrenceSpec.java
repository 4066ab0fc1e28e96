package dev.idem.core.recurrence;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * A recurrence as a user gave it (docs/scheduling.md): an RFC 5545 rule or a cron expression,
 * the IANA zone it is evaluated in, and the optional RFC 5545 fields.
 *
 * @param kind       {@link Kind#RRULE} or {@link Kind#CRON}
 * @param expression the rule ({@code FREQ=…}, optionally prefixed {@code RRULE:}) or the cron
 *                   expression (5 fields, or 6 with seconds first)
 * @param timezone   zone the rule's local times live in; never null
 * @param dtstart    RRULE anchor as a local date-time in {@code timezone}; the caller fills in
 *                   the creation time when the user gave none. Ignored for cron.
 * @param exdates    local date-times removed from the result (after COUNT); may be empty
 * @param until      inclusive end instant, or null
 * @param count      maximum number of occurrences, or null
 */
public record RecurrenceSpec(
        Kind kind,
        String expression,
        ZoneId timezone,
        LocalDateTime dtstart,
        List<LocalDateTime> exdates,
        Instant until,
        Integer count) {

    /** Which grammar {@link #expression()} is written in. */
    public enum Kind {
        RRULE,
        CRON
    }

    public RecurrenceSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(timezone, "timezone");
        exdates = exdates == null ? List.of() : List.copyOf(exdates);
    }

    /** An RRULE spec with no extra fields. */
    public static RecurrenceSpec rrule(String rule, ZoneId zone, LocalDateTime dtstart) {
        return new RecurrenceSpec(Kind.RRULE, rule, zone, dtstart, List.of(), null, null);
    }

    /** A cron spec with no extra fields. */
    public static RecurrenceSpec cron(String expression, ZoneId zone) {
        return new RecurrenceSpec(Kind.CRON, expression, zone, null, List.of(), null, null);
    }
}
