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

    default void useTransaction(Consumer<StoreTx> work) {
        inTransaction(tx -> {
            work.accept(tx);
            return null;
        });
    }

    DeliveryQueue queue();

    /** Which database this is, for logs and readiness: {@code sqlite} or {@code postgresql}. */
    String dialect();

    /** Whether the database answers a trivial query now. */
    boolean isReachable();

    @Override
    void close();
}
