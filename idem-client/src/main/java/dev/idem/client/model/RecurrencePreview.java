package dev.idem.client.model;

import java.util.List;

/**
 * The answer of {@code GET /v1/recurrence/preview}.
 *
 * @param occurrences the rule's first occurrences, at most the count asked for
 * @param stoppedEarly true when the node's search budget, not the rule's end (COUNT, UNTIL, year 9999), made the
 *     list shorter than asked: a very sparse rule has more occurrences than the preview lists
 */
public record RecurrencePreview(List<Occurrence> occurrences, boolean stoppedEarly) {}
