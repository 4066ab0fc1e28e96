package dev.idem.core.fanout;

import java.util.List;
import java.util.Optional;

/**
 * The event types an endpoint subscribes to: exact names ({@code invoice.paid}), prefixes ({@code invoice.*}: every
 * name that starts with {@code invoice.}, at any depth, but not {@code invoice} itself) or {@code *} (every name). An
 * endpoint without patterns receives every event type.
 */
public final class EventTypePatterns {
    /** At most this many patterns on one endpoint. */
    public static final int MAX_PATTERNS = 100;

    private final List<String> patterns;

    private EventTypePatterns(List<String> patterns) {
        this.patterns = patterns;
    }

    /**
     * The patterns, checked.
     *
     * @throws IllegalArgumentException naming the first pattern that is neither a name nor {@code prefix.*} nor
     *     {@code *}, or when there are none or too many
     */
    public static EventTypePatterns of(List<String> patterns) {
        if (patterns.isEmpty())
            throw new IllegalArgumentException("give at least one event type, or none at all for every event type");
        if (patterns.size() > MAX_PATTERNS)
            throw new IllegalArgumentException("at most " + MAX_PATTERNS + " event types");
        for (int i = 0; i < patterns.size(); i++) {
            int index = i;
            problem(patterns.get(i)).ifPresent(p -> {
                throw new IllegalArgumentException("[" + index + "]: " + p);
            });
        }
        return new EventTypePatterns(List.copyOf(patterns));
    }

    /** Why {@code pattern} is not a pattern, or empty when it is one. */
    public static Optional<String> problem(String pattern) {
        if (pattern.equals("*")) return Optional.empty();
        String name = pattern.endsWith(".*") ? pattern.substring(0, pattern.length() - 2) : pattern;
        return EventType.nameProblem(name)
                .map(p -> "'" + pattern + "' is neither an event type name nor a prefix such as 'invoice.*': " + p);
    }

    /** Whether a message of event type {@code name} is one these patterns subscribe to. */
    public boolean matches(String name) {
        for (String p : patterns) {
            if (p.equals("*") || p.equals(name)) return true;
            if (p.endsWith(".*") && name.length() > p.length() - 1 && name.startsWith(p.substring(0, p.length() - 1)))
                return true;
        }
        return false;
    }

    public List<String> asList() {
        return patterns;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EventTypePatterns p && p.patterns.equals(patterns);
    }

    @Override
    public int hashCode() {
        return patterns.hashCode();
    }

    @Override
    public String toString() {
        return patterns.toString();
    }
}
