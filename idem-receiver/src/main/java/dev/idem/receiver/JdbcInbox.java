package dev.idem.receiver;

import dev.idem.receiver.internal.Dialect;
import dev.idem.receiver.internal.JdbcRows;
import dev.idem.receiver.internal.JdbcRows.Row;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An inbox in a table of your own database (PostgreSQL, MySQL/MariaDB or SQLite), so the claim of a key and
 * the handler's writes commit or roll back together ({@link #process}). Each dialect claims with its own
 * atomic insert-if-absent ({@code ON CONFLICT DO NOTHING}, {@code INSERT IGNORE}); a concurrent duplicate waits
 * on the first one's row lock and then sees it processed (or, if the first rolled back, does the work).
 *
 * <p>Thread-safe; any number of instances (processes) may share the table. Times are taken from the injected
 * {@link Clock} as epoch milliseconds, so replicas' clocks should agree to well within a claim lease.
 */
public final class JdbcInbox implements TransactionalInbox {
    private static final Logger log = LoggerFactory.getLogger(JdbcInbox.class);
    private static final int MAX_CLAIM_TRIES = 8;
    static final String DONE = "done";
    static final String CLAIMED = "claimed";

    private final DataSource dataSource;
    private final String table;
    private final Clock clock;
    private final Duration lease;
    private final Dialect dialect;
    private final String insertSql;
    private final String selectSql;
    private final String selectInTxSql;
    private final String claimSql;

    private JdbcInbox(Builder b) {
        this.dataSource = b.dataSource;
        this.table = b.table;
        this.clock = b.clock;
        this.lease = b.lease;
        try (Connection c = dataSource.getConnection()) {
            this.dialect = Dialect.of(c);
            if (b.createTable) createTable(c);
        } catch (SQLException e) {
            throw new InboxException("cannot open the inbox table " + table + ": " + e.getMessage(), e);
        }
        this.insertSql = dialect.insertIfAbsent(table);
        this.selectSql = dialect.selectState(table);
        this.selectInTxSql = dialect.selectStateInTransaction(table);
        this.claimSql = dialect.claimQuery(table);
    }

    /** Starts a builder over {@code dataSource} (use a pooled one in production). */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    @Override
    public Outcome process(String key, TransactionalHandler handler) throws Exception {
        checkKey(key);
        Objects.requireNonNull(handler, "handler");
        try {
            for (int attempt = 1; ; attempt++) {
                if (attempt > MAX_CLAIM_TRIES)
                    throw new InboxException("key '" + key + "' kept changing while claiming it", null);
                Outcome o = tryProcess(key, handler, attempt);
                if (o != null) return o;
            }
        } catch (HandlerFailed f) {
            throw f.unwrap();
        }
    }

    private Outcome tryProcess(String key, TransactionalHandler handler, int attempt) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                return processIn(c, key, handler);
            } catch (SQLException e) {
                // only our own claim statements get here (the handler's failures travel as HandlerFailed)
                c.rollback();
                if (!dialect.isTransient(e) || attempt >= MAX_CLAIM_TRIES) throw storeFailure(key, e);
                log.debug("transient conflict claiming {}, try {}: {}", key, attempt, e.getMessage());
                return null;
            } finally {
                restore(c, autoCommit);
            }
        } catch (SQLException e) {
            throw storeFailure(key, e);
        }
    }

    /** Returns null to ask for another try (a race with a release or a takeover). */
    private Outcome processIn(Connection c, String key, TransactionalHandler handler) throws Exception {
        long now = clock.millis();
        Row row = insertOrRead(c, key, DONE, null, null, now, now, selectInTxSql);
        if (row != JdbcRows.INSERTED) {
            if (row == null) {
                c.rollback();
                return null;
            }
            if (DONE.equals(row.status())) {
                c.rollback();
                return Outcome.duplicate(key, row.result());
            }
            if (row.claimedUntil() > now) {
                c.rollback();
                return Outcome.inProgress(key, Duration.ofMillis(row.claimedUntil() - now));
            }
            if (JdbcRows.update(
                            c,
                            "UPDATE " + table + " SET status = ?, claim_token = NULL, claimed_until = NULL,"
                                    + " completed_at = ? WHERE idem_key = ? AND status = ? AND claim_token = ?",
                            DONE,
                            now,
                            key,
                            CLAIMED,
                            row.claimToken())
                    == 0) {
                c.rollback();
                return null;
            }
            log.info("took over expired claim on {}", key);
        }
        String result;
        try {
            result = handler.handle(c);
        } catch (Throwable t) {
            rollbackQuietly(c, t);
            throw new HandlerFailed(t);
        }
        try {
            if (result != null)
                JdbcRows.update(c, "UPDATE " + table + " SET result = ? WHERE idem_key = ?", result, key);
            c.commit();
        } catch (SQLException e) {
            rollbackQuietly(c, e);
            // the handler ran, so this is not retried here: the sender's redelivery does it again cleanly
            throw new InboxException(
                    "could not commit the handler's work for key '" + key + "'; it was rolled back", e);
        }
        return Outcome.processed(key, result);
    }

    @Override
    public Duration defaultLease() {
        return lease;
    }

    @Override
    public ClaimAttempt claim(String key, Duration lease) {
        checkKey(key);
        if (lease.isNegative() || lease.isZero()) throw new IllegalArgumentException("lease must be positive");
        String token = UUID.randomUUID().toString();
        for (int attempt = 1; ; attempt++) {
            if (attempt > MAX_CLAIM_TRIES)
                throw new InboxException("key '" + key + "' kept changing while claiming it", null);
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) c.setAutoCommit(true);
                long now = clock.millis();
                long until = now + lease.toMillis();
                Row row = insertOrRead(c, key, CLAIMED, token, until, now, null, selectSql);
                if (row == JdbcRows.INSERTED) return ClaimAttempt.granted(new JdbcClaim(key, token, false));
                if (row == null) continue;
                if (DONE.equals(row.status())) return ClaimAttempt.refused(Outcome.duplicate(key, row.result()));
                if (row.claimedUntil() > now) {
                    return ClaimAttempt.refused(Outcome.inProgress(key, Duration.ofMillis(row.claimedUntil() - now)));
                }
                if (JdbcRows.update(
                                c,
                                "UPDATE " + table + " SET claim_token = ?, claimed_until = ? WHERE idem_key = ?"
                                        + " AND status = ? AND claim_token = ?",
                                token,
                                until,
                                key,
                                CLAIMED,
                                row.claimToken())
                        == 1) {
                    log.info("took over expired claim on {}", key);
                    return ClaimAttempt.granted(new JdbcClaim(key, token, true));
                }
            } catch (SQLException e) {
                if (!dialect.isTransient(e) || attempt >= MAX_CLAIM_TRIES) throw storeFailure(key, e);
            }
        }
    }

    @Override
    public int prune(Instant cutoff, int batchSize) {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(dialect.prune(table))) {
                ps.setLong(1, cutoff.toEpochMilli());
                ps.setLong(2, clock.millis());
                ps.setInt(3, batchSize);
                return ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new InboxException("pruning " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** The table this inbox uses. */
    public String table() {
        return table;
    }

    /** Inserts the row if absent: {@link JdbcRows#INSERTED}, else the existing row's state, else null (gone). */
    private Row insertOrRead(
            Connection c,
            String key,
            String status,
            String token,
            Long until,
            long created,
            Long completed,
            String select)
            throws SQLException {
        Object u = until == null ? JdbcRows.NULL_BIGINT : until;
        Object done = completed == null ? JdbcRows.NULL_BIGINT : completed;
        if (claimSql != null) {
            Row row = JdbcRows.query(c, claimSql, key, status, token, u, created, done, key);
            return row != null ? row : JdbcRows.read(c, select, key);
        }
        if (JdbcRows.update(c, insertSql, key, status, token, u, created, done) == 1) return JdbcRows.INSERTED;
        return JdbcRows.read(c, select, key);
    }

    private void createTable(Connection c) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            for (String ddl : dialect.createInbox(table)) {
                try {
                    s.execute(ddl);
                } catch (SQLException e) {
                    if (!alreadyExists(c, ddl, e)) throw e;
                }
            }
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    // a replica creating the table or the index at the same moment
    private boolean alreadyExists(Connection c, String ddl, SQLException e) throws SQLException {
        if (ddl.startsWith("CREATE INDEX")) return dialect.indexAlreadyExists(e);
        return JdbcRows.tableExists(c, table);
    }

    private static void checkKey(String key) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
        if (key.length() > KeyExtractor.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key is longer than " + KeyExtractor.MAX_KEY_LENGTH + " characters;"
                    + " KeyExtractor hashes long keys for you");
        }
    }

    private static void restore(Connection c, boolean autoCommit) {
        try {
            if (c.getAutoCommit() != autoCommit) c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            log.warn("could not restore autocommit on a pooled connection: {}", e.getMessage());
        }
    }

    private static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private InboxException storeFailure(String key, SQLException e) {
        return new InboxException("inbox " + table + " failed for key '" + key + "': " + e.getMessage(), e);
    }

    /** Carries the handler's own failure past the retry logic, which is only for our claim statements. */
    private static final class HandlerFailed extends RuntimeException {
        HandlerFailed(Throwable cause) {
            super(cause);
        }

        Exception unwrap() {
            if (getCause() instanceof Error e) throw e;
            return (Exception) getCause();
        }
    }

    private final class JdbcClaim extends HeldClaim {
        JdbcClaim(String key, String token, boolean tookOver) {
            super(key, token, tookOver);
        }

        @Override
        public void extend(Duration lease) {
            checkOpen();
            if (autoCommitted(
                            "UPDATE " + table
                                    + " SET claimed_until = ? WHERE idem_key = ? AND status = ? AND claim_token = ?",
                            clock.millis() + lease.toMillis(),
                            key,
                            CLAIMED,
                            token)
                    == 0) throw new ClaimLostException(key);
        }

        @Override
        public void complete(String result) {
            checkOpen();
            int n = autoCommitted(
                    "UPDATE " + table + " SET status = ?, result = ?, completed_at = ?, claim_token = NULL,"
                            + " claimed_until = NULL WHERE idem_key = ? AND status = ? AND claim_token = ?",
                    DONE,
                    result,
                    clock.millis(),
                    key,
                    CLAIMED,
                    token);
            finished = true;
            if (n == 0) throw new ClaimLostException(key);
        }

        @Override
        public void close() {
            if (finished) return;
            finished = true;
            autoCommitted(
                    "DELETE FROM " + table + " WHERE idem_key = ? AND status = ? AND claim_token = ?",
                    key,
                    CLAIMED,
                    token);
        }

        private int autoCommitted(String sql, Object... params) {
            try (Connection c = dataSource.getConnection()) {
                if (!c.getAutoCommit()) c.setAutoCommit(true);
                return JdbcRows.update(c, sql, params);
            } catch (SQLException e) {
                throw storeFailure(key, e);
            }
        }
    }

    /** Builds a {@link JdbcInbox}; validates as it goes. */
    public static final class Builder {
        private final DataSource dataSource;
        private String table = "idem_inbox";
        private Clock clock = Clock.systemUTC();
        private Duration lease = Duration.ofMinutes(2);
        private boolean createTable = true;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The table name (default {@code idem_inbox}); a plain identifier, optionally schema-qualified. */
        public Builder table(String table) {
            this.table = Dialect.checkIdentifier(table);
            return this;
        }

        /** The clock claims and timestamps are taken from (default: system UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How long a claim → work → mark claim lives before another worker may take it over (default 2 min). */
        public Builder claimLease(Duration lease) {
            if (lease.isNegative() || lease.isZero())
                throw new IllegalArgumentException("claim lease must be positive");
            this.lease = lease;
            return this;
        }

        /** Whether to create the table if absent at build time (default true). */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /** @throws InboxException when the database cannot be reached or the table cannot be created */
        public JdbcInbox build() {
            return new JdbcInbox(this);
        }
    }
}
