package dev.idem.client.outbox;

/** The outbox's database failed (a connection, a statement). What the caller was doing is in the message. */
public final class OutboxException extends RuntimeException {
    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
