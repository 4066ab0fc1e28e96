package dev.idem.engine.internal;

import dev.idem.core.Delivery;
import dev.idem.core.IdGenerator;
import dev.idem.core.Materialisation;
import dev.idem.core.Schedule;
import dev.idem.core.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the occurrences of active recurring schedules within the horizon written as delivery rows, so the
 * dispatcher only reads one table (a one-shot's row is written when it is created). Works in pages: one
 * transaction reads a page of due schedules (locking them; on PostgreSQL skipping those another node is
 * materialising), moves all their cursors in one compare-and-set statement and writes all their occurrences in one
 * multi-row insert ({@link Materialisation#materialise}). If a page fails, each of its schedules is retried in its
 * own transaction, so one bad schedule cannot hold up the rest. Page size and horizon are measured choices
 * (idem-engine/README.md).
 */
public final class Materialiser {
    private static final Logger log = LoggerFactory.getLogger(Materialiser.class);
    /** Schedules per transaction: see "Materialising in sets" in idem-engine/README.md for the measurement. */
    public static final int PAGE = 1_000;
    /** A run stops after this long even with work left (the next run goes on), so the maintenance thread's other tasks get a turn. */
    private static final long RUN_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Rows inside the dispatchers' look-ahead wake them at once; later ones are found by their timer (it re-reads every
     * poll). A run writes rows a horizon ahead (at least two poll intervals), so few of its rows are this close.
     */
    private static final Duration WAKE_WITHIN = dev.idem.core.DueSoon.LOOKAHEAD;

    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final Duration horizon;
    private final Runnable onWritten;
    private final int page;
    private final dev.idem.core.OccurrenceTracing tracing;

    /** @param onWritten called after a run that wrote a delivery due within a second (wakes this node's dispatcher) */
    public Materialiser(Store store, IdGenerator ids, Clock clock, Duration horizon, Runnable onWritten) {
        this(store, ids, clock, horizon, onWritten, PAGE);
    }

    /** With another page size (the measurement harness varies it). */
    public Materialiser(Store store, IdGenerator ids, Clock clock, Duration horizon, Runnable onWritten, int page) {
        this(store, ids, clock, horizon, onWritten, page, dev.idem.core.OccurrenceTracing.NONE);
    }

    /** With {@code tracing} giving each occurrence written its creation context (docs/tracing.md). */
    public Materialiser(
            Store store,
            IdGenerator ids,
            Clock clock,
            Duration horizon,
            Runnable onWritten,
            int page,
            dev.idem.core.OccurrenceTracing tracing) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.horizon = horizon;
        this.onWritten = onWritten;
        this.page = page;
        this.tracing = tracing;
    }

    /** Materialises what is due within the horizon now; returns how many deliveries it wrote. */
    public int runOnce() {
        int written = 0;
        boolean dueSoon = false;
        long start = System.nanoTime();
        while (true) {
            Instant now = clock.instant();
            Instant until = now.plus(horizon);
            Page done = page(until, now);
            written += done.written().size();
            for (Delivery d : done.written()) dueSoon |= d.scheduledFor().isBefore(now.plus(WAKE_WITHIN));
            // a full page that wrote nothing may be one that cannot move yet (fan-out schedules wait until they are
            // due, never ahead): reading it again would find the same rows, so the rest waits for the next run
            if (done.schedules() < page || done.written().isEmpty() || System.nanoTime() - start > RUN_BUDGET_NANOS)
                break;
        }
        if (dueSoon) {
            onWritten.run();
            // other nodes' dispatchers re-read the earliest due row too, instead of waiting out their poll
            store.queue().notifyDue();
        }
        return written;
    }

    private record Page(int schedules, List<Delivery> written) {}

    private Page page(Instant until, Instant now) {
        try {
            return store.inTransaction(tx -> {
                List<Schedule> due = tx.schedules().dueForMaterialisation(until, page);
                return new Page(due.size(), Materialisation.materialise(tx, due, until, ids, now, tracing));
            });
        } catch (RuntimeException pageFailed) {
            log.warn("materialising a page failed, retrying its schedules one by one: {}", pageFailed.toString());
            List<Schedule> due = store.inTransaction(tx -> tx.schedules().dueForMaterialisation(until, page));
            List<Delivery> written = new java.util.ArrayList<>();
            for (Schedule s : due) {
                try {
                    written.addAll(store.inTransaction(
                            tx -> Materialisation.materialise(tx, List.of(s), until, ids, now, tracing)));
                } catch (RuntimeException e) {
                    try (var mdc = LogIds.schedule(s.id())) {
                        log.warn(
                                "materialising schedule {} occurrence {} failed; retried on the next run: {}",
                                s.id(),
                                s.nextFireAt(),
                                e.toString());
                    }
                }
            }
            return new Page(0, written);
        }
    }
}
