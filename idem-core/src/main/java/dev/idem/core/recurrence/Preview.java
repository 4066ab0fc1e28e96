package dev.idem.core.recurrence;

import java.util.List;

/**
 * What a preview found.
 *
 * @param occurrences the first occurrences, ascending
 * @param stoppedEarly true when the search gave up before finding as many as asked (its budget of
 *     dates and periods examined ran out; a sparse rule may have later ones), false when the list
 *     is as long as asked or the rule ends (COUNT, UNTIL, year 9999)
 * @param examined the work the search did: dates or periods examined, at most {@link
 *     Recurrences#PREVIEW_BUDGET} and one period more (a cron rule counts its searches, one or a
 *     few per occurrence)
 */
public record Preview(List<Occurrence> occurrences, boolean stoppedEarly, long examined) {
    public Preview {
        occurrences = List.copyOf(occurrences);
    }
}
