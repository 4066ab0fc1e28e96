package dev.idem.client;

import java.time.Duration;

/** Waits between retries. Tests inject one that records the waits instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
    /** The real one: {@link Thread#sleep(long)}. */
    Sleeper SYSTEM = d -> Thread.sleep(d.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
