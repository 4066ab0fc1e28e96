package dev.idem.core.recurrence;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A compiled, immutable and thread-safe recurrence: the ascending sequence of its occurrence
 * instants, with COUNT, UNTIL and EXDATE already applied. Obtain one from
 * {@link Recurrences#compile(RecurrenceSpec)}.
 */
public interface Recurrence {

    /** First occurrence strictly after {@code exclusive}; empty when the rule has ended. */
    Optional<Occurrence> firstAfter(Instant exclusive);

    /** Occurrences in ({@code fromExclusive}, {@code toInclusive}], at most {@code limit}, ascending. */
    List<Occurrence> between(Instant fromExclusive, Instant toInclusive, int limit);

    /** The most recent occurrence in ({@code fromExclusive}, {@code toInclusive}] (catch-up policy "latest"). */
    Optional<Occurrence> latestIn(Instant fromExclusive, Instant toInclusive);

    /**
     * The first {@code n} occurrences from the anchor: from DTSTART for an RRULE (then
     * {@code from} is ignored), the first after {@code from} for cron. Fewer when the rule ends or
     * when the search's budget for the whole call runs out first (see {@link #previewSearch}).
     */
    List<Occurrence> preview(Instant from, int n);

    /** As {@link #preview}, saying also whether the search stopped at its budget before finding {@code n}. */
    Preview previewSearch(Instant from, int n);
}
