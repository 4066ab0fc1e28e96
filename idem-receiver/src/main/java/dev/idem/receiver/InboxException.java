package dev.idem.receiver;

/** The inbox's store failed (connection lost, SQL error): nothing was decided, answer non-2xx. */
public final class InboxException extends RuntimeException {
    /** @param message what failed, with the key or table; never a secret */
    public InboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
