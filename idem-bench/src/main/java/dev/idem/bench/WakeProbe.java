package dev.idem.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A control for the lag figures: a thread that asks to wake every {@value #PERIOD_MS} ms and records how late it
 * woke. On a shared, loaded machine this lateness is a floor under any scheduler's lag, whatever its design.
 */
final class WakeProbe implements AutoCloseable {
    static final int PERIOD_MS = 5;
    private final Histogram late = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
    private final Thread thread;
    private volatile boolean running = true;

    WakeProbe() {
        thread = new Thread(this::loop, "wake-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        long target = System.nanoTime();
        while (running) {
            target += TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
            long wait;
            while ((wait = target - System.nanoTime()) > 0) LockSupport.parkNanos(wait);
            long lateMicros = (System.nanoTime() - target) / 1_000;
            synchronized (late) {
                late.recordValue(Math.min(lateMicros, late.getHighestTrackableValue()));
            }
            if (lateMicros > 1_000L * PERIOD_MS) target = System.nanoTime(); // do not count one stall many times
        }
    }

    /** Stops the probe and returns the lateness it saw, in microseconds. */
    Histogram stop() throws InterruptedException {
        running = false;
        thread.join(1_000);
        synchronized (late) {
            return late.copy();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
