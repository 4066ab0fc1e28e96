package dev.idem.core.store;

/**
 * A store operation failed for a reason the caller cannot fix by changing its input: the database is
 * unreachable, a statement failed, a transaction could not commit. The cause carries the detail.
 * {@link #transientFailure()} is true when retrying the same work may succeed (deadlock, serialization
 * failure, lost connection).
 */
public class StoreException extends RuntimeException {
    private final boolean transientFailure;

    public StoreException(String message, Throwable cause, boolean transientFailure) {
        super(message, cause);
        this.transientFailure = transientFailure;
    }

    /** Whether running the same work again may succeed. */
    public boolean transientFailure() {
        return transientFailure;
    }
}
