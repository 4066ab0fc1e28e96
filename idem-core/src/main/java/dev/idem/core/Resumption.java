package dev.idem.core;

import dev.idem.core.recurrence.Occurrence;
import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Resuming a paused schedule (docs/api.md, "Pause, resume, catch-up"): its {@code catch_up} policy applies to every occurrence whose time
 * passed while it was paused, whether it was already written as a delivery (within the materialiser's horizon
 * when the pause began) or not. The missed occurrences are those at or before now that no attempt has touched:
 * written ones still {@code scheduled} with no attempt, and the rule's occurrences from the cursor up to now. A
 * delivery attempted before the pause (retrying) is not an occurrence missed while paused; it goes on retrying.
 *
 * <ul>
 *   <li>{@code latest}: the most recent missed occurrence is delivered, the other written ones are cancelled;</li>
 *   <li>{@code all}: the {@link CatchUp#MAX_ALL} most recent are delivered, older written ones are cancelled;</li>
 *   <li>{@code none}: every written missed one is cancelled and none is written.</li>
 * </ul>
 *
 * A one-shot has no policy: its delivery goes out on resume, late.
 */
public final class Resumption {
    private static final int MAX_SCAN = 1_000_000;

    private Resumption() {}

    /**
     * Applies the catch-up policy and writes the resumed schedule (active, no failures, cursor past now) in the
     * caller's transaction, which holds the schedule's row.
     *
     * @return the schedule as stored now
     */
    public static Schedule resume(StoreTx tx, Schedule paused, IdGenerator ids, Instant now) {
        Schedule s = paused.withStatus(ScheduleStatus.ACTIVE, null, now).withConsecutiveFailures(0, now);
        if (!(s.definition().timing() instanceof Timing.Recurring r)) {
            tx.schedules().update(s);
            return settled(tx, s, now);
        }
        // every missed occurrence, by instant: a written one carries its delivery id, an unwritten one null
        TreeMap<Instant, String> missed = new TreeMap<>();
        for (Delivery d : tx.deliveries().neverAttempted(s.id()))
            if (!d.scheduledFor().isAfter(now)) missed.put(d.scheduledFor(), d.id());
        Instant cursor = s.nextFireAt();
        Instant next = cursor;
        if (cursor != null && !cursor.isAfter(now)) {
            Instant from = cursor.minusNanos(1);
            switch (r.catchUp()) {
                case LATEST -> r.recurrence().latestIn(from, now).ifPresent(o -> missed.putIfAbsent(o.utc(), null));
                case ALL -> {
                    List<Occurrence> all = r.recurrence().between(from, now, MAX_SCAN);
                    for (Occurrence o : all.subList(Math.max(0, all.size() - CatchUp.MAX_ALL), all.size()))
                        missed.putIfAbsent(o.utc(), null);
                }
                case NONE -> {}
            }
            next = r.firstAfter(now).orElse(null);
        }
        int keep = switch (r.catchUp()) {
            case LATEST -> 1;
            case ALL -> CatchUp.MAX_ALL;
            case NONE -> 0;
        };
        List<String> cancel = new ArrayList<>();
        List<Instant> write = new ArrayList<>();
        int kept = 0;
        for (var e : missed.descendingMap().entrySet()) {
            boolean keepIt = kept++ < keep;
            if (e.getValue() != null && !keepIt) cancel.add(e.getValue());
            if (e.getValue() == null && keepIt) write.add(e.getKey());
        }
        write.sort(null);
        long sequence = s.lastSequence();
        List<Delivery> written = new ArrayList<>(write.size());
        for (Instant at : write) written.add(Delivery.scheduled(ids.next("dlv"), s, at, ++sequence, now));
        s = s.withCursor(next, sequence, now);
        tx.schedules().update(s);
        tx.deliveries().cancelNeverAttempted(cancel, now);
        var target = dev.idem.core.fanout.ScheduledFanOut.target(s);
        if (target.isPresent()) dev.idem.core.fanout.ScheduledFanOut.fire(tx, ids, s, target.get(), written, now);
        else tx.deliveries().insertAll(written);
        return settled(tx, s, now);
    }

    private static Schedule settled(StoreTx tx, Schedule s, Instant now) {
        if (s.nextFireAt() == null
                && tx.schedules().completeIfFinished(List.of(s.id()), now).contains(s.id()))
            return s.withStatus(ScheduleStatus.COMPLETED, null, now);
        return s;
    }
}
