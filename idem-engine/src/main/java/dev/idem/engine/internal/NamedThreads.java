package dev.idem.engine.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named after their job and node, so a thread dump says who is who. */
public final class NamedThreads implements ThreadFactory {
    private final String prefix;
    private final AtomicInteger n = new AtomicInteger();

    public NamedThreads(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
    }
}
