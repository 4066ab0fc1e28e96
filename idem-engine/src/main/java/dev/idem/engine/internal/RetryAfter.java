package dev.idem.engine.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Parses {@code Retry-After}: delta-seconds or an HTTP-date (RFC 9110 section 10.2.3). */
final class RetryAfter {
    private RetryAfter() {}

    /** The wait it asks for from {@code now}; empty when absent or unreadable; never negative. */
    public static Optional<Duration> parse(String value, Instant now) {
        if (value == null) return Optional.empty();
        String v = value.trim();
        if (v.isEmpty()) return Optional.empty();
        if (v.chars().allMatch(Character::isDigit)) {
            if (v.length() > 9) return Optional.of(Duration.ofSeconds(999_999_999L));
            return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
        }
        try {
            Instant at =
                    ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(now, at);
            return Optional.of(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
