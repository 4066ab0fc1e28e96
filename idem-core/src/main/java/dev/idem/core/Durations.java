package dev.idem.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations users write: {@code 90s}, {@code 5m}, {@code 24h}, {@code 7d}, {@code 250ms}, or ISO-8601 {@code PT24H}. */
public final class Durations {
    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private Durations() {}

    /** @throws IllegalArgumentException naming the accepted forms */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("duration is empty");
        String t = text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            if (t.startsWith("P") || t.startsWith("p")) return Duration.parse(t);
        } catch (DateTimeParseException e) {
            // fall through to the error that names the accepted forms
        }
        throw new IllegalArgumentException(
                "'" + text + "' is not a duration: use e.g. \"90s\", \"5m\", \"24h\", \"7d\" or ISO-8601 \"PT24H\"");
    }

    /** The short form Idem echoes back: the largest whole unit. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) return ms / 86_400_000 + "d";
        if (ms % 3_600_000 == 0 && ms > 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0 && ms > 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }
}
