package dev.idem.bench;

import java.time.Instant;
import org.HdrHistogram.Histogram;

/**
 * What one measured run of one contender produced.
 *
 * @param due the first due instant; a burst has every delivery due then
 * @param doneMicros epoch microseconds when the last 2xx outcome was seen recorded (committed) by the contender
 * @param insertMillis how long writing the run's deliveries took (before {@code due}; not part of the drain)
 * @param overran whether writing ran past {@code due}, which would spoil the measurement
 * @param pendingAfter rows the contender's queue still held after the run (expected 0)
 * @param completed 2xx outcomes recorded during the run (expected {@code n})
 * @param completedByNode the same, by node ({@code --nodes}); their sum is {@code completed}
 * @param wakeLate how late a probe thread woke during the run (microseconds): the machine's own scheduling noise
 */
record Phase(
        String contender,
        String label,
        int n,
        Instant due,
        long doneMicros,
        long insertMillis,
        boolean overran,
        boolean timedOut,
        long completed,
        long[] completedByNode,
        long pendingAfter,
        Receiver.Tally tally,
        Histogram lag,
        CpuUse.Span cpu,
        Histogram wakeLate) {

    long dueMicros() {
        return due.getEpochSecond() * 1_000_000L + due.getNano() / 1_000;
    }

    /** Seconds from the due instant to the last 2xx recorded. */
    double drainSeconds() {
        return (doneMicros - dueMicros()) / 1e6;
    }

    /** Deliveries per second over {@link #drainSeconds()}. */
    double rate() {
        return n / drainSeconds();
    }

    /** Milliseconds from the due instant to the first request at the receiver. */
    double firstRequestMs() {
        return (tally.firstMicros() - dueMicros()) / 1e3;
    }

    /** "per node: 5,010 / 4,990", or an empty string for one node. */
    String byNode() {
        if (completedByNode.length < 2) return "";
        return "per node: "
                + java.util.Arrays.stream(completedByNode)
                        .mapToObj(c -> String.format("%,d", c))
                        .collect(java.util.stream.Collectors.joining(" / "));
    }

    /** Exactly once: every delivery arrived once, none twice, all recorded, the queue empty, signatures good. */
    boolean exactlyOnce() {
        return tally.unique() == n
                && tally.duplicates() == 0
                && completed == n
                && pendingAfter == 0
                && tally.badSignatures() == 0;
    }

    /** Problems that make the figure suspect, or an empty string. */
    String problems() {
        StringBuilder b = new StringBuilder();
        if (overran) b.append(" writing the run overran its due instant;");
        if (timedOut) b.append(" timed out;");
        if (tally.unique() != n)
            b.append(" receiver saw ")
                    .append(tally.unique())
                    .append(" distinct of ")
                    .append(n)
                    .append(';');
        if (tally.duplicates() > 0) b.append(' ').append(tally.duplicates()).append(" DUPLICATE deliveries;");
        if (completed != n)
            b.append(' ')
                    .append(completed)
                    .append(" outcomes recorded of ")
                    .append(n)
                    .append(';');
        if (pendingAfter != 0) b.append(' ').append(pendingAfter).append(" rows still queued;");
        if (tally.early() > 0) b.append(' ').append(tally.early()).append(" requests arrived EARLY;");
        if (tally.badSignatures() > 0)
            b.append(' ').append(tally.badSignatures()).append(" BAD signatures;");
        return b.toString().trim();
    }
}
