package dev.idem.core.recurrence;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneRules;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * Maps a cursor's nominal local times to instants under the conventions of docs/scheduling.md and yields them in
 * strictly increasing instant order.
 *
 * <p>A time in a spring-forward gap moves forward by the gap's length
 * ({@link ZonedDateTime#ofLocal} with no preferred offset does exactly that) and an ambiguous
 * fall-back time takes the earlier offset, so the first instant. The forward move breaks
 * monotonicity (nominal 02:59 becomes 03:59, after nominal 03:00), so gap times wait in a
 * small queue until a later non-gap time proves nothing earlier can follow; a gap time landing
 * on an instant already produced is dropped, as a scheduler fires once per instant.
 */
final class ZonedStream {

    /** An occurrence with the rule's own local time, which EXDATE and a local UNTIL compare against. */
    record Item(LocalDateTime nominal, Occurrence occurrence) {
        Instant utc() {
            return occurrence.utc();
        }
    }

    private final LocalSource.Cursor cursor;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final ZoneOffset fixed;
    private final PriorityQueue<Item> pending = new PriorityQueue<>(Comparator.comparing(Item::utc));
    private Instant safeUpTo;
    private Instant lastEmitted;
    private boolean exhausted;

    ZonedStream(LocalSource.Cursor cursor, ZoneId zone) {
        this.cursor = cursor;
        this.zone = zone;
        this.rules = zone.getRules();
        this.fixed = rules.isFixedOffset() ? rules.getOffset(Instant.EPOCH) : null;
    }

    /** Whether the last null from {@link #next()} means the source's search budget ran out. */
    boolean stoppedEarly() {
        return cursor.stoppedEarly();
    }

    /** The source's units of work spent so far (see {@link LocalSource.Cursor#examined()}). */
    long examined() {
        return cursor.examined();
    }

    /** The next occurrence, or null when the source has none. */
    Item next() {
        while (true) {
            Item head = pending.peek();
            if (head != null && (exhausted || (safeUpTo != null && !head.utc().isAfter(safeUpTo)))) {
                pending.poll();
                if (lastEmitted != null && !head.utc().isAfter(lastEmitted)) {
                    continue;
                }
                lastEmitted = head.utc();
                return head;
            }
            if (exhausted) {
                return null;
            }
            LocalDateTime nominal = cursor.next();
            if (nominal == null) {
                exhausted = true;
                continue;
            }
            if (fixed != null) {
                Item item = new Item(nominal, new Occurrence(nominal, nominal.toInstant(fixed)));
                pending.add(item);
                safeUpTo = item.utc();
                continue;
            }
            ZonedDateTime zoned = ZonedDateTime.ofLocal(nominal, zone, null);
            Item item = new Item(nominal, new Occurrence(zoned.toLocalDateTime(), zoned.toInstant()));
            pending.add(item);
            if (!rules.getValidOffsets(nominal).isEmpty()) {
                safeUpTo = item.utc();
            }
        }
    }
}
