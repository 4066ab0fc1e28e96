package dev.idem.core.store;

/**
 * A transaction's COMMIT was sent but its answer was lost with the connection, and the database could not be asked
 * afterwards whether it took effect: the work may or may not have been applied. Retrying is safe only for work that
 * is idempotent by itself (a request with an {@code Idempotency-Key}).
 */
public class CommitOutcomeUnknownException extends StoreException {
    public CommitOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause, true);
    }
}
