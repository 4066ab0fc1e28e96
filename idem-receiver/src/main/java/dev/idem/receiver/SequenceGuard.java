package dev.idem.receiver;

import dev.idem.receiver.internal.Dialect;
import dev.idem.receiver.internal.JdbcRows;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Applies an event only when its sequence is newer than the last one applied for the same resource (e.g.
 * {@code Idem-Sequence} per schedule, or an order's version), since deliveries may arrive out of order. Call
 * {@link #advance} inside the handler's transaction: if the handler then fails, the advance rolls back too.
 */
public final class SequenceGuard {
    private final String table;
    private final Dialect dialect;

    private SequenceGuard(String table, Dialect dialect) {
        this.table = table;
        this.dialect = dialect;
    }

    /** A guard over {@code table} (created if absent) in the database of {@code dataSource}. */
    public static SequenceGuard create(DataSource dataSource, String table) {
        Dialect.checkIdentifier(table);
        try (Connection c = dataSource.getConnection()) {
            Dialect d = Dialect.of(c);
            if (!c.getAutoCommit()) c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute(d.createSequenceTable(table));
            } catch (SQLException e) {
                if (!JdbcRows.tableExists(c, table)) throw e;
            }
            return new SequenceGuard(table, d);
        } catch (SQLException e) {
            throw new InboxException("cannot open the sequence table " + table + ": " + e.getMessage(), e);
        }
    }

    /**
     * Records {@code sequence} for {@code resource} if it is newer than the last one recorded, atomically.
     *
     * @return true when the event is newer and should be applied; false when it is stale or a repeat
     */
    public boolean advance(Connection tx, String resource, long sequence) throws SQLException {
        Objects.requireNonNull(resource, "resource");
        return dialect.advanceSequence(tx, table, resource, sequence);
    }
}
