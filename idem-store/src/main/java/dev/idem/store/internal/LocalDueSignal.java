package dev.idem.store.internal;

import java.sql.Connection;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/** In-process signals (SQLite: one process owns the database). Bursts coalesce into one call. */
final class LocalDueSignal extends DueSignal {
    private final BlockingQueue<Boolean> pending = new ArrayBlockingQueue<>(1);
    private Thread thread;
    private boolean closed;

    @Override
    protected synchronized void started() {
        if (thread != null || closed) return;
        thread = new Thread(this::run, "idem-store-due-signal");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                pending.take();
                fire();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    void inTransaction(Connection c) {}

    @Override
    void afterCommit() {
        now();
    }

    @Override
    void now() {
        pending.offer(Boolean.TRUE);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (thread != null) thread.interrupt();
    }
}
