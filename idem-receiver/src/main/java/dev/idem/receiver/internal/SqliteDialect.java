package dev.idem.receiver.internal;

import java.sql.SQLException;

/** SQLite: the standard statements; one writer, so "busy" and "locked" are the conflicts to retry. Not public API. */
public final class SqliteDialect implements Dialect {
    static final SqliteDialect INSTANCE = new SqliteDialect();

    private SqliteDialect() {}

    // the driver reports no SQLSTATE; the result code name is in the message
    @Override
    public boolean isTransient(SQLException e) {
        return Dialect.anyInChain(e, s -> {
            String msg = String.valueOf(s.getMessage());
            return msg.contains("SQLITE_BUSY") || msg.contains("SQLITE_LOCKED");
        });
    }
}
