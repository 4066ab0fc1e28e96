package dev.idem.wire.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that tests set and move by hand instead of sleeping; safe to read and move from many threads. Zone UTC.
 * The one copy every module's tests share (idem-wire's test jar), since the receiver and the client may depend on
 * idem-wire only.
 */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
    }

    /** A clock standing at {@code start}. */
    public static MutableClock at(Instant start) {
        return new MutableClock(start);
    }

    /** A clock standing at {@code instant}, written as {@link Instant#parse} reads it ({@code 2026-03-10T17:00:00Z}). */
    public static MutableClock at(String instant) {
        return new MutableClock(Instant.parse(instant));
    }

    /** A clock standing at {@code 2030-01-01T00:00:00Z}: far from the real time, so leaked real-clock use shows. */
    public static MutableClock standing() {
        return at(Instant.parse("2030-01-01T00:00:00Z"));
    }

    /**
     * A clock standing at the real time, to the millisecond (as the databases keep it), for tests whose rows must look
     * recent to code on the system clock.
     */
    public static MutableClock now() {
        return new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    public void set(Instant instant) {
        now.set(Objects.requireNonNull(instant, "instant"));
    }

    /** Moves the clock forward (or back, for a negative duration); returns the new time. */
    public Instant advance(Duration by) {
        Objects.requireNonNull(by, "by");
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

    /** This clock, for UTC; any other zone is refused rather than silently read as UTC. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone))
            throw new UnsupportedOperationException("MutableClock is always UTC, not " + zone);
        return this;
    }
}
