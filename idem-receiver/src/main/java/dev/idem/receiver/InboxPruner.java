package dev.idem.receiver;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes keys first seen longer ago than the {@link DedupWindow}, in small batches so the table stays bounded
 * without long locks. Run it on one replica or on all: deletes are idempotent.
 */
public final class InboxPruner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InboxPruner.class);

    private final Inbox inbox;
    private final DedupWindow window;
    private final Clock clock;
    private final int batchSize;
    private ScheduledExecutorService scheduler;

    /** A pruner of {@code inbox}; batches of 1000 keys. */
    public InboxPruner(Inbox inbox, DedupWindow window, Clock clock) {
        this(inbox, window, clock, 1000);
    }

    /** A pruner of {@code inbox} that deletes at most {@code batchSize} keys per statement. */
    public InboxPruner(Inbox inbox, DedupWindow window, Clock clock, int batchSize) {
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.window = Objects.requireNonNull(window, "window");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (batchSize < 1) throw new IllegalArgumentException("batch size must be at least 1");
        this.batchSize = batchSize;
    }

    /** Deletes every key older than the window now, batch after batch; returns how many. */
    public int pruneNow() {
        Instant cutoff = clock.instant().minus(window.window());
        int total = 0;
        int n;
        do {
            n = inbox.prune(cutoff, batchSize);
            total += n;
        } while (n >= batchSize);
        return total;
    }

    /** Prunes every {@code interval} on a daemon thread until {@link #close()}. */
    public synchronized InboxPruner start(Duration interval) {
        if (scheduler != null) throw new IllegalStateException("pruner already started");
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-inbox-pruner");
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        int n = pruneNow();
                        if (n > 0) log.debug("pruned {} inbox keys older than {}", n, window.window());
                    } catch (RuntimeException e) {
                        log.warn("inbox pruning failed, will try again: {}", e.getMessage());
                    }
                },
                ms,
                ms,
                TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) scheduler.shutdownNow();
        scheduler = null;
    }
}
