package dev.idem.client.outbox;

import dev.idem.client.internal.OutboxDialect;
import dev.idem.client.internal.TraceContext;
import dev.idem.client.model.ScheduleCreate;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * The transactional outbox (docs/client.md): {@link #enqueue} writes a schedule request into a table of your own
 * database, in your transaction, next to your business writes; an {@link OutboxRelay} sends it to Idem later with
 * {@code Idempotency-Key} = the row's id. Commit, and the schedule will exist exactly once; roll back, and it never
 * will.
 *
 * <pre>{@code
 * IdemOutbox outbox = IdemOutbox.builder().build();          // table idem_outbox
 * outbox.createTable(dataSource);                             // or run IdemOutbox.ddl(OutboxDatabase.POSTGRESQL, "idem_outbox")
 * try (Connection tx = dataSource.getConnection()) {
 *     tx.setAutoCommit(false);
 *     insertOrder(tx, order);
 *     outbox.enqueue(tx, ScheduleCreate.builder("https://billing.internal/hooks").delay("24h").payload(order).build());
 *     tx.commit();
 * }
 * }</pre>
 *
 * PostgreSQL, MySQL/MariaDB (8.0+ / 10.6+, for {@code SKIP LOCKED}) and SQLite; the dialect is read from the connection.
 */
public final class IdemOutbox {
    private final String table;
    private final Clock clock;
    private final RandomGenerator random;

    private IdemOutbox(Builder b) {
        this.table = b.table;
        this.clock = b.clock;
        this.random = b.random;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The statements that create the table and its index when absent, to run yourself (a migration) or through {@link #createTable}. */
    public static List<String> ddl(OutboxDatabase database, String table) {
        return OutboxDialect.valueOf(database.name()).createTable(OutboxDialect.checkIdentifier(table));
    }

    public String table() {
        return table;
    }

    Clock clock() {
        return clock;
    }

    /** Creates the table and its index if absent (safe to call at every start). */
    public void createTable(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                OutboxDialect d = OutboxDialect.of(c);
                try (Statement s = c.createStatement()) {
                    for (String sql : d.createTable(table)) s.execute(sql);
                }
                // a table made by an earlier version lacks the trace columns: add them
                if (!hasTraceColumns(c, d)) {
                    try (Statement s = c.createStatement()) {
                        for (String sql : d.addTraceColumns(table)) s.execute(sql);
                    }
                }
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new OutboxException("cannot create the outbox table " + table + ": " + e.getMessage(), e);
        }
    }

    private boolean hasTraceColumns(Connection c, OutboxDialect d) {
        try (Statement s = c.createStatement()) {
            s.executeQuery(d.probeTraceColumns(table)).close();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Writes {@code request} as a pending row through {@code tx}, the connection of your open transaction. Nothing is
     * sent now: it is sent after your commit, by a relay, and never if you roll back.
     *
     * @return the row's id ({@code obx_…}), which is also the request's {@code Idempotency-Key} at Idem
     * @throws IllegalStateException when {@code tx} is in auto-commit mode: the row would not share your transaction
     */
    public String enqueue(Connection tx, ScheduleCreate request) {
        Objects.requireNonNull(request, "request");
        try {
            if (tx.getAutoCommit())
                throw new IllegalStateException(
                        "enqueue writes into your transaction, but this connection is in auto-commit mode: "
                                + "call setAutoCommit(false) (or use your framework's transaction) before your business writes");
            Instant now = clock.instant();
            String id = newId(now);
            try (PreparedStatement ps = tx.prepareStatement(OutboxDialect.of(tx).insert(table))) {
                ps.setString(1, id);
                ps.setString(2, request.toJson());
                ps.setLong(3, now.toEpochMilli());
                ps.setLong(4, now.toEpochMilli());
                // the producer's trace: the relay's later call continues it rather than the relay's own
                Map<String, String> trace = TraceContext.current();
                String traceparent = trace.get("traceparent");
                boolean traced = TraceContext.validTraceparent(traceparent);
                ps.setString(5, traced ? traceparent : null);
                ps.setString(6, traced ? trace.get("tracestate") : null);
                ps.executeUpdate();
            }
            return id;
        } catch (SQLException e) {
            throw new OutboxException(
                    "cannot write to the outbox table " + table + " (does it exist? see createTable): "
                            + e.getMessage(),
                    e);
        }
    }

    /** A row by id, read through {@code c}. */
    public Optional<OutboxRow> find(Connection c, String id) {
        try (PreparedStatement ps = c.prepareStatement(OutboxDialect.of(c).select(table))) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) return Optional.empty();
                return Optional.of(new OutboxRow(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getInt(4),
                        instant(rs, 5),
                        rs.getString(6),
                        instant(rs, 7),
                        rs.getString(8),
                        rs.getString(9),
                        instant(rs, 10),
                        instant(rs, 11),
                        rs.getString(12),
                        rs.getString(13)));
            }
        } catch (SQLException e) {
            throw new OutboxException("cannot read outbox row " + id + " from " + table + ": " + e.getMessage(), e);
        }
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Instant.ofEpochMilli(v);
    }

    /** {@code obx_} + the time in hex (rows sort by creation) + 80 random bits (unguessable, unique across relays and hosts). */
    private String newId(Instant now) {
        byte[] r = new byte[10];
        synchronized (random) {
            for (int i = 0; i < r.length; i++) r[i] = (byte) random.nextInt(256);
        }
        return "obx_" + String.format("%012x", now.toEpochMilli())
                + HexFormat.of().formatHex(r);
    }

    public static final class Builder {
        private String table = "idem_outbox";
        private Clock clock = Clock.systemUTC();
        private RandomGenerator random = new SecureRandom();

        private Builder() {}

        /** The table's name, a plain identifier, optionally schema-qualified (default {@code idem_outbox}). */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** The clock rows are stamped with, and relays built on this outbox claim by. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder random(RandomGenerator random) {
            this.random = random;
            return this;
        }

        public IdemOutbox build() {
            OutboxDialect.checkIdentifier(table);
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(random, "random");
            return new IdemOutbox(this);
        }
    }
}
