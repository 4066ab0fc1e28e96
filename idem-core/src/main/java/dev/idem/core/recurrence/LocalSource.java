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
    Cursor open(LocalDateTime fromInclusive, LocalDateTime toInclusive);

    /** Iterates nominal times; not thread-safe, one per query. */
    interface Cursor {
        /** The next nominal time, or null when there is none (or the search budget ran out). */
        LocalDateTime next();
    }
}
