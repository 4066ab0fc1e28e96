package dev.idem.receiver.servlet;

import java.sql.Connection;

/**
 * Makes the inbox transaction's connection current for a framework while the handler runs (the Spring Boot
 * starter binds it to Spring's transaction synchronisation, so {@code JdbcTemplate} writes join the claim).
 */
@FunctionalInterface
public interface ConnectionBinder {
    /** Binds {@code tx}; closing the result unbinds it. */
    AutoCloseable bind(Connection tx) throws Exception;

    /** Binds nothing: handlers use {@link WebhookRequests#transaction}. */
    static ConnectionBinder none() {
        return tx -> () -> {};
    }
}
