package dev.idem.store.internal;

import java.time.Clock;

/**
 * "Now" for the queue's statements: the {@code clk} common table expression each one starts with, the database's clock
 * or a bound value from the injected clock, so one statement sees one instant.
 */
final class QueueClock {
    /** Now inside a statement that starts with {@link #cte()}. */
    static final String NOW = "(SELECT ms FROM clk)";

    private final Dialect dialect;
    private final Clock clock;
    private final boolean databaseClock;

    QueueClock(Dialect dialect, Clock clock, boolean databaseClock) {
        this.dialect = dialect;
        this.clock = clock;
        this.databaseClock = databaseClock;
    }

    /** Whether now is the database's clock (no parameter bound for it). */
    boolean databaseClock() {
        return databaseClock;
    }

    /** {@code WITH clk AS (...)}: binds one parameter (the injected clock's now) unless the database clock is used. */
    String cte() {
        return "WITH clk AS (SELECT " + (databaseClock ? dialect.databaseNowMillis() : "CAST(? AS BIGINT)")
                + " AS ms) ";
    }

    /** The arguments of a statement that starts with {@link #cte()}. */
    Object[] args(Object... rest) {
        return databaseClock ? rest : withClock(clock.millis(), rest);
    }

    /** The injected clock's now (not the database's). */
    long injectedMillis() {
        return clock.millis();
    }

    /** The store's now inside {@code sql}'s transaction. */
    long nowMillis(Sql sql) {
        if (!databaseClock) return clock.millis();
        return sql.one("SELECT " + dialect.databaseNowMillis(), rs -> rs.getLong(1))
                .orElseThrow();
    }

    /** {@code rest} after the clock's parameter, {@code now}. */
    static Object[] withClock(long now, Object[] rest) {
        Object[] out = new Object[rest.length + 1];
        out[0] = now;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}
