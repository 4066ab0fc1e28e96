package dev.idem.engine.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The dispatcher's two executors: {@code workers} build and hand attempts to the sender (CPU work, a few threads),
 * {@code timer} starts what waits for an instant. Both refuse tasks once the engine shuts them down; the caller learns
 * it from the answer and keeps what it held for the give-back at shutdown.
 */
final class Tasks {
    private final Executor workers;
    private final ScheduledExecutorService timer;

    Tasks(Executor workers, ScheduledExecutorService timer) {
        this.workers = workers;
        this.timer = timer;
    }

    /** Runs {@code task} on a worker; false when the workers are shut down. */
    boolean run(Runnable task) {
        return accepted(() -> workers.execute(task));
    }

    /** Runs {@code task} on the timer in {@code nanos} (to the nanosecond); false when the timer is shut down. */
    boolean after(long nanos, Runnable task) {
        return accepted(() -> timer.schedule(task, nanos, TimeUnit.NANOSECONDS));
    }

    private static boolean accepted(Runnable submit) {
        try {
            submit.run();
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }
}
