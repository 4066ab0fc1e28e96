package dev.idem.store.internal;

import dev.idem.core.store.Store;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "deliveries may be due" channel behind {@link Store#onDeliveriesDue}. Subclasses decide how a
 * signal travels: in process ({@link LocalDueSignal}) or through PostgreSQL ({@link PgDueSignal}); the
 * dialect picks one ({@link Dialect#dueSignal}).
 */
abstract class DueSignal implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DueSignal.class);
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    final Store.Subscription subscribe(Runnable listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        started();
        return () -> listeners.remove(listener);
    }

    /** Calls every listener on the calling (signal) thread; a throwing listener does not stop the others. */
    protected final void fire() {
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                log.warn("deliveries-due listener failed", e);
            }
        }
    }

    /** Called on each subscription; starts the delivery thread if it is not running. */
    protected abstract void started();

    /** Inside a transaction that asked to signal, before it commits. */
    abstract void inTransaction(Connection c);

    /** After such a transaction committed. */
    abstract void afterCommit();

    /** Now, outside any transaction. */
    abstract void now();

    @Override
    public abstract void close();
}
