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
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each active schedule's occurrences within the horizon written as delivery rows, so the dispatcher only
 * reads one table. A page of schedules is materialised in one transaction (one commit for many occurrences); if
 * that fails, each is retried in its own, so one bad schedule cannot hold up the rest. The cursor's
 * compare-and-set and the unique (schedule, scheduled_for) make a race with another node harmless.
 */
public final class Materialiser {
    private static final Logger log = LoggerFactory.getLogger(Materialiser.class);
    private static final int PAGE = 100;
    private static final int MAX_PAGES_PER_RUN = 50;

    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final Duration horizon;
    private final Runnable onWritten;

    /** @param onWritten called after a run that wrote at least one delivery (wakes the dispatcher) */
    public Materialiser(Store store, IdGenerator ids, Clock clock, Duration horizon, Runnable onWritten) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.horizon = horizon;
        this.onWritten = onWritten;
    }

    private int materialise(List<Schedule> due, Instant until, Instant now) {
        if (due.isEmpty()) return 0;
        try {
            return store.inTransaction(tx -> {
                int n = 0;
                for (Schedule s : due) if (Materialisation.step(tx, s, until, ids, now).isPresent()) n++;
                return n;
            });
        } catch (RuntimeException batchFailed) {
            int n = 0;
            for (Schedule s : due) {
                try {
                    Optional<Delivery> d = store.inTransaction(tx -> Materialisation.step(tx, s, until, ids, now));
                    if (d.isPresent()) n++;
                } catch (RuntimeException e) {
                    try (var ids = LogIds.schedule(s.id())) {
                        log.warn("materialising schedule {} occurrence {} failed; retried on the next run: {}", s.id(), s.nextFireAt(), e.toString());
                    }
                }
            }
            return n;
        }
    }

    /** Materialises what is due within the horizon now; returns how many deliveries it wrote. */
    public int runOnce() {
        int written = 0;
        for (int page = 0; page < MAX_PAGES_PER_RUN; page++) {
            Instant now = clock.instant();
            Instant until = now.plus(horizon);
            List<Schedule> due = store.inTransaction(tx -> tx.schedules().dueForMaterialisation(until, PAGE));
            written += materialise(due, until, now);
            if (due.size() < PAGE) break;
        }
        if (written > 0) {
            onWritten.run();
            // other nodes' dispatchers re-read the earliest due row too, instead of waiting out their poll
            store.queue().notifyDue();
        }
        return written;
    }
}
