package dev.idem.client.outbox;

/** The databases an outbox table can live in. */
public enum OutboxDatabase {
    POSTGRESQL,
    MYSQL,
    SQLITE
}
