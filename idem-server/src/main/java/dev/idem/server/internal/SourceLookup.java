package dev.idem.server.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.idem.core.Source;
import dev.idem.core.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ingest route's source by id, with the unauthenticated caller's ids kept apart from the sources that exist, so
 * that a flood of made-up ids can never get a real provider's event refused:
 * <ul>
 *   <li>the ids of sources that exist are kept ({@link #known}, Caffeine, bounded); a source as read (its opened
 *       secrets with it) is kept for {@link #FRESH_FOR} at most ({@link #opened}), then read again (a change on another
 *       node shows within that), never charged to any budget: an opened provider secret lives in memory no longer
 *       than that, and for at most {@link #LIMIT} sources;</li>
 *   <li>which ids exist is learnt from the store in one scan of the ids created since the last one, at most every
 *       {@link #SCAN_EVERY} and only when an id not yet known is asked for (the first scan reads them all), so a source
 *       created on another node, or before this node started, is known without a read of its own;</li>
 *   <li>an id still unknown after that is read at most {@link #UNKNOWN_LOOKUPS_PER_SECOND} times a second per node,
 *       whatever the ids (429 with {@code Retry-After} beyond), and its absence is kept for {@link #MISSING_FOR}:
 *       random ids cost the database at most that many reads a second and never touch the known sources' reads.</li>
 * </ul>
 */
final class SourceLookup {
    /** How long a read source is used before it is read again: the bound on another node's change showing here. */
    static final Duration FRESH_FOR = Duration.ofSeconds(2);
    /** How long an id found missing is answered 404 without asking the store again. */
    static final Duration MISSING_FOR = Duration.ofSeconds(2);
    /** The least time between two scans for new ids (and so the longest a new source waits to be known). */
    static final Duration SCAN_EVERY = Duration.ofSeconds(2);
    /**
     * How far back each scan reaches before the previous one began: a source created on a node whose clock is behind
     * this one's (its {@code created_at} earlier than this node's time of the scan) is still found.
     */
    static final Duration SCAN_OVERLAP = Duration.ofMinutes(1);
    /** Store reads a second per node for ids that are neither known nor recently missing. */
    static final int UNKNOWN_LOOKUPS_PER_SECOND = 500;

    /** How many ids, and how many read sources, are kept at most. */
    static final int LIMIT = 100_000;

    private final Store store;
    private final Clock clock;
    private final RateLimiter unknownLookups;
    private final Cache<String, Boolean> known;
    private final Cache<String, Source> opened;
    private final Cache<String, Boolean> missing;
    private final ReentrantLock scanning = new ReentrantLock();
    private volatile long nextScanAt = Long.MIN_VALUE;
    private volatile Instant scannedFrom = Instant.EPOCH;

    SourceLookup(Store store, Clock clock) {
        this(store, clock, LIMIT);
    }

    SourceLookup(Store store, Clock clock, int limit) {
        this.store = store;
        this.clock = clock;
        this.unknownLookups = new RateLimiter(0, clock);
        Ticker ticker = () -> TimeUnit.MILLISECONDS.toNanos(clock.millis());
        this.known = Caffeine.newBuilder().maximumSize(limit).build();
        this.opened = Caffeine.newBuilder()
                .maximumSize(limit)
                .expireAfterWrite(FRESH_FOR)
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
        this.missing = Caffeine.newBuilder()
                .maximumSize(limit)
                .expireAfterWrite(MISSING_FOR)
                .ticker(ticker)
                .build();
    }

    /** The source, not deleted; 404 when there is none, 429 when an unknown id finds the lookup budget spent. */
    Source find(String id) {
        boolean exists = known.getIfPresent(id) != null;
        if (!exists && missing.getIfPresent(id) == null && scanForNewIds()) exists = known.getIfPresent(id) != null;
        if (exists) {
            Source fresh = opened.getIfPresent(id);
            if (fresh != null) return fresh;
            return read(id).orElseThrow(() -> ApiException.notFound("source", id));
        }
        if (missing.getIfPresent(id) != null) throw ApiException.notFound("source", id);
        unknownLookups.acquire("unknown", UNKNOWN_LOOKUPS_PER_SECOND, "unknown sources on this node");
        return read(id).orElseThrow(() -> ApiException.notFound("source", id));
    }

    /** Drops what is kept about {@code id} after its change on this node (other nodes see it within {@link #FRESH_FOR}). */
    void forget(String id) {
        known.invalidate(id);
        opened.invalidate(id);
        missing.invalidate(id);
    }

    /** Sources held as read, opened secrets and all (for tests of the bounds). */
    long openedCount() {
        opened.cleanUp();
        return opened.estimatedSize();
    }

    private Optional<Source> read(String id) {
        Optional<Source> s = store.inReadTransaction(tx -> tx.sources().findForIngest(id));
        if (s.isPresent()) {
            known.put(id, Boolean.TRUE);
            opened.put(id, s.get());
            missing.invalidate(id);
        } else {
            known.invalidate(id);
            opened.invalidate(id);
            missing.put(id, Boolean.TRUE);
        }
        return s;
    }

    /**
     * Learns the ids created since the last scan, when that was {@link #SCAN_EVERY} ago or more and no other thread is
     * scanning (one that is answers for both); true when this call scanned.
     */
    private boolean scanForNewIds() {
        long now = clock.millis();
        if (now < nextScanAt || !scanning.tryLock()) return false;
        try {
            if (now < nextScanAt) return false;
            // a scan that fails (the store is down) is tried again after the same wait, not by every request
            nextScanAt = now + SCAN_EVERY.toMillis();
            Instant from = scannedFrom;
            Instant started = clock.instant();
            for (String id : store.inReadTransaction(tx -> tx.sources().idsCreatedSince(from)))
                known.asMap().putIfAbsent(id, Boolean.TRUE);
            scannedFrom = started.minus(SCAN_OVERLAP);
            return true;
        } finally {
            scanning.unlock();
        }
    }
}
