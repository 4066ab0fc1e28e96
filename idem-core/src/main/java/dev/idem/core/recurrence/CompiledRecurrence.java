package dev.idem.core.recurrence;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The one {@link Recurrence} implementation, for RRULE and cron alike: a {@link LocalSource}
 * of nominal times, mapped to instants by {@link ZonedStream}, then UNTIL, COUNT and EXDATE
 * in that order (docs/scheduling.md: EXDATE removes occurrences after COUNT is applied).
 */
final class CompiledRecurrence implements Recurrence {

    private static final Duration WIDEST_LOOKBACK = Duration.ofDays(366);
    /** Queries are clamped to years 1..9999 so no local-time conversion can overflow. */
    private static final Instant FIRST_INSTANT = Instant.parse("0001-01-02T00:00:00Z");

    private static final Instant LAST_INSTANT = Instant.parse("9999-12-30T00:00:00Z");

    private final LocalSource source;
    private final ZoneId zone;
    private final LocalDateTime anchor;
    private final Integer count;
    private final Until until;
    private final Set<LocalDateTime> exdates;
    private volatile Instant countEnd;

    /**
     * @param anchor DTSTART for an RRULE (where COUNT starts counting), null for cron
     */
    CompiledRecurrence(
            LocalSource source,
            ZoneId zone,
            LocalDateTime anchor,
            Integer count,
            Until until,
            Set<LocalDateTime> exdates) {
        this.source = source;
        this.zone = zone;
        this.anchor = anchor;
        this.count = count;
        this.until = until;
        this.exdates = Set.copyOf(exdates);
    }

    @Override
    public Optional<Occurrence> firstAfter(Instant exclusive) {
        return Optional.ofNullable(walk(exclusive, null, Long.MAX_VALUE).next());
    }

    @Override
    public List<Occurrence> between(Instant fromExclusive, Instant toInclusive, int limit) {
        List<Occurrence> out = new ArrayList<>();
        if (limit <= 0 || !toInclusive.isAfter(fromExclusive)) {
            return out;
        }
        Walk walk = walk(fromExclusive, toInclusive, Long.MAX_VALUE);
        while (out.size() < limit) {
            Occurrence o = walk.next();
            if (o == null || o.utc().isAfter(toInclusive)) {
                break;
            }
            out.add(o);
        }
        return out;
    }

    @Override
    public Optional<Occurrence> latestIn(Instant fromExclusive, Instant toInclusive) {
        // widen a window backwards from the end so a dense rule after long downtime is not walked whole
        if (!toInclusive.isAfter(fromExclusive)) {
            return Optional.empty();
        }
        Duration span = Duration.between(fromExclusive, toInclusive);
        Duration window = Duration.ofHours(1);
        while (true) {
            boolean coversAll = window.compareTo(span) >= 0;
            Instant start = coversAll ? fromExclusive : toInclusive.minus(window);
            Occurrence last = null;
            Walk walk = walk(coversAll ? fromExclusive : start, toInclusive, Long.MAX_VALUE);
            for (Occurrence o = walk.next(); o != null && !o.utc().isAfter(toInclusive); o = walk.next()) {
                last = o;
            }
            if (last != null || coversAll) {
                return Optional.ofNullable(last);
            }
            window = window.compareTo(WIDEST_LOOKBACK) < 0 ? window.multipliedBy(8) : window.multipliedBy(2);
        }
    }

    @Override
    public List<Occurrence> preview(Instant from, int n) {
        return previewSearch(from, n).occurrences();
    }

    @Override
    public Preview previewSearch(Instant from, int n) {
        List<Occurrence> out = new ArrayList<>();
        Walk walk = walk(anchor != null ? null : from, null, RuleExpander.PREVIEW_BUDGET);
        while (out.size() < n) {
            Occurrence o = walk.next();
            if (o == null) {
                return new Preview(out, walk.stoppedEarly(), walk.examined());
            }
            out.add(o);
        }
        return new Preview(out, false, walk.examined());
    }

    /**
     * Occurrences after {@code after} (null: from the anchor); {@code endHint} bounds the search when known;
     * {@code budget} caps the dates or periods examined over the whole walk (see {@link LocalSource#open}).
     */
    private Walk walk(Instant after, Instant endHint, long budget) {
        if ((after != null && after.isAfter(LAST_INSTANT)) || (endHint != null && endHint.isBefore(FIRST_INSTANT))) {
            return new Walk(null, after, 0, null);
        }
        if (after != null && after.isBefore(FIRST_INSTANT)) {
            after = FIRST_INSTANT;
        }
        if (endHint != null && endHint.isAfter(LAST_INSTANT)) {
            endHint = null;
        }
        Instant countEnd = count != null && after != null ? countEnd() : null;
        if (Instant.MIN.equals(countEnd)) {
            return new Walk(null, after, 0, null);
        }
        if (countEnd != null && (endHint == null || countEnd.isBefore(endHint))) {
            endHint = countEnd;
        }
        LocalDateTime horizon = until == null ? LocalSource.END_OF_TIME : until.localHorizon(zone);
        if (endHint != null) {
            LocalDateTime end = LocalDateTime.ofInstant(endHint, zone).plusDays(2);
            horizon = end.isBefore(horizon) ? end : horizon;
        }
        LocalDateTime from =
                after == null ? anchor : LocalDateTime.ofInstant(after, zone).minus(offsetSwingNear(after));
        return new Walk(
                new ZonedStream(source.open(from, horizon, budget), zone),
                after,
                after == null ? count : null,
                countEnd);
    }

    /**
     * The instant of the COUNT-th match, found once by walking from DTSTART. Afterwards a counted
     * rule is the same rule bounded by that instant, so queries far from DTSTART can skip ahead
     * instead of counting from the start every time.
     */
    private Instant countEnd() {
        Instant end = countEnd;
        return end != null ? end : findCountEnd(Long.MAX_VALUE);
    }

    /** Whether a counted rule's end is found within {@code budget} dates or periods (then kept, as by {@link #countEnd}). */
    boolean countEndWithin(long budget) {
        return count == null || countEnd != null || findCountEnd(budget) != null;
    }

    /** The COUNT-th match's instant ({@link Instant#MIN} when none); null when a finite {@code budget} ran out first. */
    private Instant findCountEnd(long budget) {
        Walk all = new Walk(
                new ZonedStream(
                        source.open(anchor, until == null ? LocalSource.END_OF_TIME : until.localHorizon(zone), budget),
                        zone),
                null,
                count,
                null);
        Instant end = Instant.MIN;
        for (ZonedStream.Item item = all.nextMatch(); item != null; item = all.nextMatch()) {
            end = item.utc();
        }
        if (budget != Long.MAX_VALUE && all.stoppedEarly()) {
            return null;
        }
        countEnd = end;
        return end;
    }

    /** How far a nominal time may sit before {@code at}'s wall time and still map after it. */
    private Duration offsetSwingNear(Instant at) {
        ZoneRules rules = zone.getRules();
        Duration swing = Duration.ofSeconds(1);
        Instant low = at.minus(Duration.ofDays(2));
        ZoneOffsetTransition t = rules.previousTransition(at.plus(Duration.ofDays(2)));
        while (t != null && !t.getInstant().isBefore(low)) {
            swing = swing.plus(t.getDuration().abs());
            t = rules.previousTransition(t.getInstant());
        }
        return swing;
    }

    private final class Walk {
        private final ZonedStream stream;
        private final Instant after;
        private final Integer limit;
        private final Instant end;
        private int counted;
        private boolean stoppedEarly;

        Walk(ZonedStream stream, Instant after, Integer limit, Instant end) {
            this.stream = stream;
            this.after = after;
            this.limit = limit;
            this.end = end;
        }

        /** The next occurrence after {@code after}, EXDATEs removed. */
        Occurrence next() {
            for (ZonedStream.Item item = nextMatch(); item != null; item = nextMatch()) {
                boolean excluded = exdates.contains(item.nominal())
                        || exdates.contains(item.occurrence().local());
                if (!excluded && (after == null || item.utc().isAfter(after))) {
                    return item.occurrence();
                }
            }
            return null;
        }

        /** Whether the walk ended because the search budget ran out, not because the rule ended. */
        boolean stoppedEarly() {
            return stoppedEarly;
        }

        /** The dates or periods the walk examined (0 for a walk with nothing to search). */
        long examined() {
            return stream == null ? 0 : stream.examined();
        }

        /** The next match within UNTIL and COUNT, EXDATEs included (they do not change the count). */
        ZonedStream.Item nextMatch() {
            if (limit != null && counted >= limit) {
                return null;
            }
            ZonedStream.Item item = stream.next();
            if (item == null) {
                stoppedEarly = stream.stoppedEarly();
                return null;
            }
            if ((until != null && !until.admits(item.nominal(), item.utc()))
                    || (end != null && item.utc().isAfter(end))) {
                return null;
            }
            counted++;
            return item;
        }
    }
}
