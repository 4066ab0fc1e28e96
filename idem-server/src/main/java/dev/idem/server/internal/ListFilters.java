package dev.idem.server.internal;

import dev.idem.core.fanout.EventType;
import dev.idem.core.store.DeliveryRepository.ListFilter;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The query parameters {@code GET /v1/messages} and {@code GET /v1/deliveries} share: {@code event_type} and the
 * range [{@code since}, {@code until}). Each is checked before the store is asked, a bad one a 400 naming it.
 */
final class ListFilters {
    private ListFilters() {}

    /** {@code event_type}, {@code since} and {@code until} as given (null or empty: not given), checked. */
    static ListFilter parse(String eventType, String since, String until) {
        String type = emptyAsNull(eventType);
        if (type != null)
            EventType.nameProblem(type).ifPresent(p -> {
                throw ApiException.invalid("parameter_invalid", "event_type", "event_type: " + p);
            });
        Instant from = time(emptyAsNull(since), "since");
        Instant to = time(emptyAsNull(until), "until");
        if (from != null && to != null && !to.isAfter(from))
            throw ApiException.invalid(
                    "parameter_invalid_time", "until", "until must be later than since (the range is [since, until))");
        return new ListFilter(type, from, to);
    }

    private static Instant time(String v, String param) {
        if (v == null) return null;
        try {
            return OffsetDateTime.parse(v).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(
                    "parameter_invalid_time",
                    param,
                    param + " must be an RFC 3339 instant with an offset, e.g. 2026-03-10T17:00:00Z");
        }
    }

    private static String emptyAsNull(String v) {
        return v == null || v.isEmpty() ? null : v;
    }
}
