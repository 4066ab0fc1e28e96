package dev.idem.core.store;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The persistence port. Work that must be atomic runs in {@link #inTransaction}; the delivery
 * queue's short claim/complete transactions live behind {@link #queue()}.
 */
public interface Store extends AutoCloseable {
    /**
     * Runs {@code work} in one transaction, committed when it returns and rolled back when it throws
     * (the exception propagates unchanged). Objects obtained from the {@link StoreTx} must not escape.
     */
    <T> T inTransaction(Function<StoreTx, T> work);

    /**
     * Runs {@code work} as {@link #inTransaction} does, in a transaction it may share with the grouped work of other
     * threads (group commit): a burst of small writes commits together. The result is returned, or the work's
     * exception thrown, only once the outcome is known: a result means the work committed. Work that throws is
     * rolled back and never fails its neighbours (each of them then runs in a transaction of its own); a failed
     * COMMIT fails every work of the group. The work must only write through the {@link StoreTx} and be safe to run
     * again (it may run twice when a neighbour fails); it runs on another thread than the caller's, which must not be
     * inside a transaction itself.
     */
    default <T> T inGroupCommit(Function<StoreTx, T> work) {
        return inTransaction(work);
    }

    /** What {@link #inGroupCommit} did since this store opened, for metrics. */
    default WriteGroups writeGroups() {
        return WriteGroups.NONE;
    }

    /**
     * Runs {@code work}, which only reads, in one read-only transaction: it sees one consistent state and
     * never waits for writers (on SQLite it runs beside the single writer instead of queueing for it).
     * A write inside fails with a {@link StoreException} and changes nothing. Use it for lookups on hot
     * paths (authentication, GETs).
     */
    default <T> T inReadTransaction(Function<StoreTx, T> work) {
        return inTransaction(work);
    }

    default void useTransaction(Consumer<StoreTx> work) {
        inTransaction(tx -> {
            work.accept(tx);
            return null;
        });
    }

    DeliveryQueue queue();

    /** The node liveness records (one short transaction per call, on a connection of its own). */
    NodeRegistry nodes();

    /**
     * Subscribes {@code listener} to "deliveries may be due now" signals: those sent by
     * {@link DeliveryQueue#notifyDue()} and by committed transactions that called
     * {@link StoreTx#notifyDeliveriesDue()}, on any node sharing this store. On PostgreSQL the signal
     * travels by {@code LISTEN/NOTIFY} over one dedicated connection (so every node hears every
     * node); on SQLite, which has a single process, it stays in process. Signals may be coalesced or,
     * while the connection is lost, missed (the listener is called once more after a reconnect), so a
     * listener is a hint to claim now, never a replacement for the dispatcher's timer.
     *
     * <p>The listener runs on the store's notification thread: it must be quick and must not block
     * (typically it wakes the dispatcher). Exceptions it throws are logged and ignored.
     *
     * @return a subscription; closing it stops the signals to this listener
     */
    Subscription onDeliveriesDue(Runnable listener);

    /** An {@link #onDeliveriesDue} subscription. Closing it twice is harmless. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /** Which database this is, for logs and readiness: {@code sqlite} or {@code postgresql}. */
    String dialect();

    /**
     * Whether claims on {@link #queue()} can run at the same time: each locks only the rows it takes (PostgreSQL's
     * {@code FOR UPDATE SKIP LOCKED}), so a dispatcher gains from more than one claim loop. False where the database
     * has a single writer (SQLite): a second claim loop would only queue behind the first. Ask this rather than
     * {@link #dialect()}, which is a name for people to read.
     */
    boolean claimsConcurrently();

    /** Whether the database answers a trivial query now. */
    boolean isReachable();

    @Override
    void close();
}
