package dev.idem.cli;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --since} and {@code --until} of a list command or a bulk replay as the API's RFC 3339 instants, checked
 * before any request (a bad one is exit 2, naming the option): each is a duration back from now ({@code 1h},
 * {@code 7d}, {@code PT30M}) or an instant, and until is later than since, as the API's range [since, until) needs.
 */
record TimeRange(String since, String until) {
    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([smhd])");

    /** Both options (null: not given) as instants for the query string; exit 2, before any request, when one is off. */
    static TimeRange of(Connection conn, String since, String until) {
        Instant from = instant(conn, since, "--since");
        Instant to = instant(conn, until, "--until");
        if (from != null && to != null && !to.isAfter(from))
            throw conn.usage("--until must be later than --since (the range is [since, until)), got --since " + since
                    + " and --until " + until);
        return new TimeRange(from == null ? null : from.toString(), to == null ? null : to.toString());
    }

    private static Instant instant(Connection conn, String value, String option) {
        if (value == null) return null;
        try {
            Matcher m = SHORT.matcher(value);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return Instant.now()
                        .minus(
                                switch (m.group(2)) {
                                    case "s" -> Duration.ofSeconds(n);
                                    case "m" -> Duration.ofMinutes(n);
                                    case "h" -> Duration.ofHours(n);
                                    default -> Duration.ofDays(n);
                                });
            }
            if (value.startsWith("P")) return Instant.now().minus(Duration.parse(value));
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeException | ArithmeticException e) {
            throw conn.usage(option + " must be a duration (1h, 7d, PT30M) or an RFC 3339 instant such as"
                    + " 2026-03-10T17:00:00Z, got " + value);
        }
    }
}
