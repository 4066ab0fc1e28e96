package dev.idem.store.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests set and move by hand; safe to read from many threads. Zone UTC. */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;

    private MutableClock(Instant start) {
        this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
    }

    /** A clock standing at {@code start}. */
    public static MutableClock at(Instant start) {
        return new MutableClock(start);
    }

    /** A clock standing at {@code 2030-01-01T00:00:00Z}: far from the real time, so leaked real-clock use shows. */
    public static MutableClock standing() {
        return at(Instant.parse("2030-01-01T00:00:00Z"));
    }

    public void set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
    }

    /** Moves the clock forward (or back, for a negative duration); returns the new time. */
    public Instant advance(Duration by) {
        return now.updateAndGet(t -> t.plus(by));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("MutableClock is always UTC");
    }
}
