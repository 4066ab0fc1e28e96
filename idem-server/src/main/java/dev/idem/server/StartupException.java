package dev.idem.server;

/**
 * A node could not start for a reason its operator must fix (the port is taken, the address cannot be bound). The
 * message says what failed and what to do; nothing was served and no engine ran.
 */
public final class StartupException extends RuntimeException {
    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
