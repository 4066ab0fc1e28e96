package dev.idem.core;

import java.util.Locale;

/**
 * What a recurring schedule does about occurrences missed while Idem was down or the schedule paused.
 * {@code LATEST} (default) sends one delivery for the most recent missed occurrence; {@code ALL} sends
 * every missed one, at most {@link #MAX_ALL} of the most recent; {@code NONE} skips them all.
 */
public enum CatchUp {
    LATEST,
    ALL,
    NONE;

    /** The most missed occurrences {@code ALL} sends after one outage. */
    public static final int MAX_ALL = 100;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static CatchUp parse(String s) {
        for (CatchUp c : values()) if (c.wireName().equals(s)) return c;
        throw new IllegalArgumentException("catch_up must be one of latest, all, none");
    }
}
