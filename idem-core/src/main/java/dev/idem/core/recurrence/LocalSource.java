package dev.idem.core.recurrence;

import java.time.LocalDateTime;

/**
 * Produces a recurrence's nominal local date-times (before any time-zone mapping), strictly
 * increasing. Working in local time keeps DST out of rule expansion; {@link ZonedStream} maps
 * the results to instants afterwards.
 */
interface LocalSource {

    /** Latest local date-time any source produces; later matches count as "the rule has ended". */
    LocalDateTime END_OF_TIME = LocalDateTime.of(9999, 12, 31, 23, 59, 59);

    /** A cursor over the nominal times in [{@code fromInclusive}, {@code toInclusive}]. */
    default Cursor open(LocalDateTime fromInclusive, LocalDateTime toInclusive) {
        return open(fromInclusive, toInclusive, Long.MAX_VALUE);
    }

    /**
     * As {@link #open(LocalDateTime, LocalDateTime)}, examining at most {@code budget} dates or
     * periods over all its {@code next} calls together (a source that has no such unit ignores it).
     */
    Cursor open(LocalDateTime fromInclusive, LocalDateTime toInclusive, long budget);

    /** Iterates nominal times; not thread-safe, one per query. */
    interface Cursor {
        /** The next nominal time, or null when there is none (or the search budget ran out). */
        LocalDateTime next();

        /** Whether the last null from {@link #next()} means the budget ran out, not the end of the range. */
        default boolean stoppedEarly() {
            return false;
        }

        /** The units of work spent so far: dates or periods examined (a cron source counts its searches). */
        long examined();
    }
}
