package dev.idem.core.recurrence;

import java.time.Instant;
import java.time.LocalDateTime;

/**
 * One occurrence of a recurrence.
 *
 * @param local the wall-clock time in the recurrence's zone at {@code utc}. For a rule time
 *              that fell into a spring-forward gap this is the shifted time actually on the
 *              clock (02:30 in a one-hour gap becomes 03:30), never a time that did not exist.
 * @param utc   the instant the occurrence is due
 */
public record Occurrence(LocalDateTime local, Instant utc) implements Comparable<Occurrence> {

    @Override
    public int compareTo(Occurrence other) {
        return utc.compareTo(other.utc);
    }
}
