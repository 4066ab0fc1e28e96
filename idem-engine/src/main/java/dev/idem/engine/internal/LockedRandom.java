package dev.idem.engine.internal;

import java.util.random.RandomGenerator;

/** Serialises access to a caller's generator, which need not be thread-safe (SplittableRandom is not). */
public final class LockedRandom implements RandomGenerator {
    private final RandomGenerator delegate;

    public LockedRandom(RandomGenerator delegate) {
        this.delegate = delegate;
    }

    @Override
    public synchronized long nextLong() {
        return delegate.nextLong();
    }

    @Override
    public synchronized long nextLong(long bound) {
        return delegate.nextLong(bound);
    }

    @Override
    public synchronized void nextBytes(byte[] bytes) {
        delegate.nextBytes(bytes);
    }
}
