package dev.idem.engine.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A latch a loop sleeps on until a deadline or a signal; a signal sent while it was awake is not lost. */
final class Wakeup {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean signalled;

    public void signal() {
        lock.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sleeps up to {@code nanos} or until signalled; clears the signal. */
    public void await(long nanos) throws InterruptedException {
        lock.lock();
        try {
            long left = nanos;
            while (!signalled && left > 0) left = changed.awaitNanos(left);
            signalled = false;
        } finally {
            lock.unlock();
        }
    }

    public void await(long amount, TimeUnit unit) throws InterruptedException {
        await(unit.toNanos(amount));
    }
}
