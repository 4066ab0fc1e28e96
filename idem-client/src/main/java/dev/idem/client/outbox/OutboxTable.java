package dev.idem.client.outbox;

import dev.idem.client.RequestOptions;
import dev.idem.client.internal.OutboxDialect;
import dev.idem.client.internal.TraceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The statements a relay runs on its outbox table: claiming a batch, and recording each row's outcome. */
final class OutboxTable {
    private final DataSource dataSource;
    private final String table;
    private final String relayId;
    private volatile OutboxDialect dialect;

    OutboxTable(DataSource dataSource, String table, String relayId) {
        this.dataSource = dataSource;
        this.table = table;
        this.relayId = relayId;
    }

    /** Claims up to {@code batchSize} due rows under {@code token} until {@code leaseEnd}, in one short transaction. */
    List<Claimed> claim(String token, Instant now, Instant leaseEnd, int batchSize) {
        try (Connection c = dataSource.getConnection()) {
            OutboxDialect d = dialect(c);
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                List<Claimed> rows = d.claimsInOneStatement()
                        ? claimReturning(c, d, token, now, leaseEnd, batchSize)
                        : claimLocked(c, d, token, now, leaseEnd, batchSize);
                c.commit();
                return rows;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new OutboxException(
                    "relay " + relayId + " could not claim rows of " + table + ": " + e.getMessage(), e);
        }
    }

    private List<Claimed> claimReturning(
            Connection c, OutboxDialect d, String token, Instant now, Instant leaseEnd, int batchSize)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(d.claimReturning(table))) {
            ps.setString(1, token);
            ps.setLong(2, leaseEnd.toEpochMilli());
            ps.setLong(3, now.toEpochMilli());
            ps.setLong(4, now.toEpochMilli());
            ps.setInt(5, batchSize);
            return read(ps.executeQuery(), 0);
        }
    }

    private List<Claimed> claimLocked(
            Connection c, OutboxDialect d, String token, Instant now, Instant leaseEnd, int batchSize)
            throws SQLException {
        List<Claimed> rows;
        try (PreparedStatement ps = c.prepareStatement(d.selectForClaim(table))) {
            ps.setLong(1, now.toEpochMilli());
            ps.setInt(2, batchSize);
            rows = read(ps.executeQuery(), 1);
        }
        if (rows.isEmpty()) return rows;
        try (PreparedStatement ps = c.prepareStatement(d.claimByIds(table, rows.size()))) {
            ps.setString(1, token);
            ps.setLong(2, leaseEnd.toEpochMilli());
            ps.setLong(3, now.toEpochMilli());
            for (int i = 0; i < rows.size(); i++) ps.setString(4 + i, rows.get(i).id);
            ps.executeUpdate();
        }
        return rows.stream()
                .map(r -> new Claimed(
                        r.id,
                        r.request,
                        r.attempts,
                        r.firstSentAt != null ? r.firstSentAt : now,
                        r.traceparent,
                        r.tracestate))
                .toList();
    }

    /** @param attemptsAdded 1 when the rows were read before the claim's {@code attempts + 1} */
    private static List<Claimed> read(ResultSet rs, int attemptsAdded) throws SQLException {
        List<Claimed> rows = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                long first = rs.getLong(4);
                Instant firstSentAt = rs.wasNull() ? null : Instant.ofEpochMilli(first);
                rows.add(new Claimed(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getInt(3) + attemptsAdded,
                        firstSentAt,
                        rs.getString(5),
                        rs.getString(6)));
            }
        }
        return rows;
    }

    /** A claimed row: what the relay sends, and what its backoff and key window need. */
    record Claimed(
            String id, String request, int attempts, Instant firstSentAt, String traceparent, String tracestate) {
        /** The row's key, and the trace of the transaction that wrote it when it had one (else the relay's). */
        RequestOptions options() {
            RequestOptions o = RequestOptions.idempotencyKey(id);
            return TraceContext.validTraceparent(traceparent) ? o.withTraceContext(traceparent, tracestate) : o;
        }
    }

    /** Runs one statement on a row outside any transaction; how many rows it changed. */
    int update(String rowId, java.util.function.Function<OutboxDialect, String> sql, Object... params) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.apply(dialect(c)))) {
                for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
                return ps.executeUpdate();
            }
        } catch (SQLException e) {
            // the row keeps its claim and comes back when the lease ends:
            // sent again with the same key, replayed by Idem
            throw new OutboxException(
                    "relay " + relayId + " could not record the outcome of outbox row " + rowId + ": " + e.getMessage(),
                    e);
        }
    }

    private OutboxDialect dialect(Connection c) throws SQLException {
        OutboxDialect d = dialect;
        if (d == null) dialect = d = OutboxDialect.of(c);
        return d;
    }
}
