package dev.idem.receiver;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An inbox in this process's memory: for tests, local practice ({@code idem listen} without {@code --inbox})
 * and single-instance receivers that accept losing their dedup memory on restart. Thread-safe.
 */
public final class MemoryInbox implements Inbox {
    private record Entry(boolean done, String token, long claimedUntil, String result, long createdAt) {}

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Duration lease;

    /** An inbox on {@code clock} with claims that live {@code lease}. */
    public MemoryInbox(Clock clock, Duration lease) {
        this.clock = Objects.requireNonNull(clock, "clock");
        if (lease.isNegative() || lease.isZero()) throw new IllegalArgumentException("claim lease must be positive");
        this.lease = lease;
    }

    /** System clock, two-minute claims. */
    public MemoryInbox() {
        this(Clock.systemUTC(), Duration.ofMinutes(2));
    }

    @Override
    public Duration defaultLease() {
        return lease;
    }

    @Override
    public ClaimAttempt claim(String key, Duration lease) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
        String token = UUID.randomUUID().toString();
        long now = clock.millis();
        Entry[] before = new Entry[1];
        Entry after = entries.compute(key, (k, e) -> {
            before[0] = e;
            if (e == null || (!e.done && e.claimedUntil <= now)) {
                return new Entry(false, token, now + lease.toMillis(), null, e == null ? now : e.createdAt);
            }
            return e;
        });
        if (token.equals(after.token)) return ClaimAttempt.granted(new MemoryClaim(key, token, before[0] != null));
        if (after.done) return ClaimAttempt.refused(Outcome.duplicate(key, after.result));
        return ClaimAttempt.refused(Outcome.inProgress(key, Duration.ofMillis(after.claimedUntil - now)));
    }

    @Override
    public int prune(Instant cutoff, int batchSize) {
        long c = cutoff.toEpochMilli();
        long now = clock.millis();
        int[] n = {0};
        entries.forEach((k, e) -> {
            if (n[0] < batchSize && e.createdAt < c && (e.done || e.claimedUntil < now) && entries.remove(k, e)) n[0]++;
        });
        return n[0];
    }

    private final class MemoryClaim extends HeldClaim {
        MemoryClaim(String key, String token, boolean tookOver) {
            super(key, token, tookOver);
        }

        @Override
        public void extend(Duration lease) {
            checkOpen();
            boolean[] ok = {false};
            long until = clock.millis() + lease.toMillis();
            entries.computeIfPresent(key, (k, e) -> {
                if (e.done || !token.equals(e.token)) return e;
                ok[0] = true;
                return new Entry(false, token, until, null, e.createdAt);
            });
            if (!ok[0]) throw new ClaimLostException(key);
        }

        @Override
        public void complete(String result) {
            checkOpen();
            finished = true;
            boolean[] ok = {false};
            entries.computeIfPresent(key, (k, e) -> {
                if (e.done || !token.equals(e.token)) return e;
                ok[0] = true;
                return new Entry(true, null, 0, result, e.createdAt);
            });
            if (!ok[0]) throw new ClaimLostException(key);
        }

        @Override
        public void close() {
            if (finished) return;
            finished = true;
            entries.computeIfPresent(key, (k, e) -> !e.done && token.equals(e.token) ? null : e);
        }
    }
}
