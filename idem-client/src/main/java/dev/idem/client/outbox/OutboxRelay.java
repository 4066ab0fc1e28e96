package dev.idem.client.outbox;

import dev.idem.client.IdemClient;
import dev.idem.client.IdemException;
import dev.idem.client.RequestOptions;
import dev.idem.client.Sleeper;
import dev.idem.client.internal.Backoff;
import dev.idem.client.internal.OutboxDialect;
import dev.idem.client.internal.TraceContext;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.wire.KeyWindow;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import javax.sql.DataSource;

/**
 * Sends an outbox's pending rows to Idem: claims a batch (a short transaction that sets each row's lease), sends each
 * row's request with {@code Idempotency-Key} = its id, and marks it {@code sent} with the schedule's id. A row Idem
 * refuses (4xx) is marked {@code failed} with the error; any other failure puts it back with exponential backoff.
 *
 * <p>Any number of relays may share one table. A claimed row is invisible to other relays until its lease ends, and
 * a relay sends a row only while its lease is longer than the client's worst-case call, so no two relays send one
 * row at once. A relay that dies (after sending, before marking) leaves its rows to the next relay when the lease
 * ends; that relay sends them again with the same key, and Idem answers with the schedule it created the first time.
 *
 * <p>Run it as a thread ({@link #start()}, {@link #close()}) or call {@link #runOnce()} from your own scheduler.
 */
public final class OutboxRelay implements AutoCloseable {
    private static final System.Logger log = System.getLogger(OutboxRelay.class.getName());

    private final IdemOutbox outbox;
    private final DataSource dataSource;
    private final IdemClient client;
    private final String table;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration lease;
    private final Duration callBudget;
    private final Duration keyWindow;
    private final Backoff backoff;
    private final String relayId;
    private final Clock clock;
    private final Sleeper sleeper;
    private final RandomGenerator random;
    private final AtomicLong claims = new AtomicLong();
    private volatile OutboxDialect dialect;
    private volatile boolean running;
    private Thread thread;

    private OutboxRelay(Builder b) {
        this.outbox = b.outbox;
        this.dataSource = b.dataSource;
        this.client = b.client;
        this.table = b.outbox.table();
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.callBudget = b.client.config().worstCaseCallDuration();
        this.lease = b.lease != null ? b.lease : callBudget.multipliedBy(2).plusSeconds(10);
        this.keyWindow = b.keyWindow;
        this.backoff = new Backoff(b.initialBackoff, b.maxBackoff);
        this.relayId = b.relayId;
        this.clock = b.clock != null ? b.clock : b.outbox.clock();
        this.sleeper = b.sleeper;
        this.random = b.random;
    }

    /** A relay sending {@code outbox}'s rows, read and marked through {@code dataSource}, to Idem through {@code client}. */
    public static Builder builder(IdemOutbox outbox, DataSource dataSource, IdemClient client) {
        return new Builder(outbox, dataSource, client);
    }

    public Duration lease() {
        return lease;
    }

    /**
     * Claims one batch of due rows and sends them, one after another.
     *
     * @return how many rows were sent (and marked sent) in this run
     * @throws OutboxException when the database could not be used; rows already claimed return when their lease ends
     */
    public int runOnce() {
        Instant now = clock.instant();
        String token = relayId + "/" + claims.incrementAndGet();
        Instant leaseEnd = now.plus(lease);
        List<Claimed> rows = claim(token, now, leaseEnd);
        int sent = 0;
        for (int i = 0; i < rows.size(); i++) {
            Claimed row = rows.get(i);
            Instant t = clock.instant();
            if (!running && thread != null || t.plus(callBudget).isAfter(leaseEnd)) {
                // too little lease left to finish a call in it (or closing): the rest go back now, for any relay
                for (Claimed rest : rows.subList(i, rows.size()))
                    update(rest.id, d -> d.release(table), t.toEpochMilli(), rest.id, token);
                break;
            }
            if (send(row, token, t)) sent++;
        }
        return sent;
    }

    private boolean send(Claimed row, String token, Instant now) {
        if (row.firstSentAt != null
                && row.attempts > 1
                && Duration.between(row.firstSentAt, now).compareTo(keyWindow) > 0) {
            update(
                    row.id,
                    d -> d.markFailed(table),
                    "key_window_passed: first sent " + row.firstSentAt + "; Idem keeps a key " + KeyWindow.LENGTH
                            + ", so sending it again could create a second schedule. Check Idem for it, then enqueue a new row if it is missing",
                    row.id,
                    token);
            return false;
        }
        ScheduleCreate request;
        try {
            request = ScheduleCreate.fromJson(row.request);
        } catch (IllegalArgumentException e) {
            update(row.id, d -> d.markFailed(table), "unreadable_request: " + e.getMessage(), row.id, token);
            return false;
        }
        try {
            Schedule s = client.schedules().create(request, row.options());
            if (update(row.id, d -> d.markSent(table), s.id(), clock.instant().toEpochMilli(), row.id, token) == 0)
                log.log(
                        System.Logger.Level.WARNING,
                        "outbox row {0} was sent (schedule {1}) but its claim had passed to another relay",
                        row.id,
                        s.id());
            return true;
        } catch (IdemException e) {
            String error = e.type() + (e.code() == null ? "" : "/" + e.code()) + ": " + e.getMessage();
            if (e.retryable()) {
                Instant next = clock.instant().plus(backoff.delay(row.attempts, random));
                update(row.id, d -> d.markRetry(table), next.toEpochMilli(), error, row.id, token);
                log.log(
                        System.Logger.Level.INFO,
                        "outbox row {0} not sent (attempt {1}), retried at {2}: {3}",
                        row.id,
                        row.attempts,
                        next,
                        error);
            } else {
                update(row.id, d -> d.markFailed(table), error, row.id, token);
                log.log(
                        System.Logger.Level.WARNING,
                        "outbox row {0} refused by Idem, marked failed: {1}",
                        row.id,
                        error);
            }
            return false;
        }
    }

    private List<Claimed> claim(String token, Instant now, Instant leaseEnd) {
        try (Connection c = dataSource.getConnection()) {
            OutboxDialect d = dialect(c);
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                List<Claimed> rows = d.claimsInOneStatement()
                        ? claimReturning(c, d, token, now, leaseEnd)
                        : claimLocked(c, d, token, now, leaseEnd);
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

    private List<Claimed> claimReturning(Connection c, OutboxDialect d, String token, Instant now, Instant leaseEnd)
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

    private List<Claimed> claimLocked(Connection c, OutboxDialect d, String token, Instant now, Instant leaseEnd)
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

    private record Claimed(
            String id, String request, int attempts, Instant firstSentAt, String traceparent, String tracestate) {
        /** The row's key, and the trace of the transaction that wrote it when it had one (else the relay's). */
        RequestOptions options() {
            RequestOptions o = RequestOptions.idempotencyKey(id);
            return TraceContext.validTraceparent(traceparent) ? o.withTraceContext(traceparent, tracestate) : o;
        }
    }

    private int update(String rowId, java.util.function.Function<OutboxDialect, String> sql, Object... params) {
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

    /**
     * Deletes rows sent more than {@code olderThan} ago, in batches of 1,000.
     *
     * @return how many were deleted
     */
    public int pruneSent(Duration olderThan) {
        long cutoff = clock.instant().minus(olderThan).toEpochMilli();
        int total = 0;
        int n;
        do {
            n = update("(prune)", d -> d.pruneSent(table), cutoff, 1000);
            total += n;
        } while (n == 1000);
        return total;
    }

    private OutboxDialect dialect(Connection c) throws SQLException {
        OutboxDialect d = dialect;
        if (d == null) dialect = d = OutboxDialect.of(c);
        return d;
    }

    /** Starts a daemon thread that runs {@link #runOnce()} until {@link #close()}, pausing {@code pollInterval} when it found less than a batch. */
    public synchronized OutboxRelay start() {
        if (thread != null) throw new IllegalStateException("relay " + relayId + " was already started");
        running = true;
        thread = new Thread(this::loop, "idem-outbox-relay-" + relayId);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        while (running) {
            int sent = 0;
            try {
                sent = runOnce();
            } catch (RuntimeException e) {
                log.log(System.Logger.Level.WARNING, "outbox relay " + relayId + ": " + e.getMessage(), e);
            }
            if (sent < batchSize && running) {
                try {
                    sleeper.sleep(pollInterval);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Stops the thread: the row being sent finishes and the rest of its batch is released for other relays. The thread is
     * interrupted only if it is still busy after the client's worst-case call (a row cut off then returns when its
     * lease ends, and is sent again with the same key).
     */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
        }
        if (t == null) return;
        try {
            t.join(pollInterval.plus(callBudget).plusSeconds(1).toMillis());
            if (t.isAlive()) {
                t.interrupt();
                t.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static final class Builder {
        private final IdemOutbox outbox;
        private final DataSource dataSource;
        private final IdemClient client;
        private int batchSize = 50;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration lease;
        private Duration initialBackoff = Duration.ofSeconds(1);
        private Duration maxBackoff = Duration.ofMinutes(5);
        private Duration keyWindow = Duration.ofHours(23);
        private String relayId = defaultRelayId();
        private Clock clock;
        private Sleeper sleeper = Sleeper.SYSTEM;
        private RandomGenerator random = new SecureRandom();

        private Builder(IdemOutbox outbox, DataSource dataSource, IdemClient client) {
            this.outbox = Objects.requireNonNull(outbox, "outbox");
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Rows claimed per run (1 to 1000, default 50). */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** The thread's pause when a run found less than a batch (default 1 s): the longest a committed row waits. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        /**
         * How long a claim keeps a row from other relays (default: twice the client's worst-case call plus 10 s). It must
         * exceed the worst-case call; a relay that dies holds its rows this long. A client with few attempts (the relay
         * retries rows itself) keeps it short.
         */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** Row retries: from {@code initial} doubling to {@code max}, jittered (default 1 s to 5 min). */
        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /**
         * How long after a row's first send it may still be sent again (default 23 h; at most {@link KeyWindow#LENGTH},
         * 24 h, the time Idem keeps a key). Past it the row is marked {@code failed} instead of risking a second schedule.
         */
        public Builder keyWindow(Duration keyWindow) {
            this.keyWindow = keyWindow;
            return this;
        }

        /** This relay's name in {@code claimed_by} (default host name, pid and a random suffix). */
        public Builder relayId(String relayId) {
            this.relayId = relayId;
            return this;
        }

        /** The clock claims and leases are read on (default: the outbox's). Relays sharing a table need clocks in step (NTP). */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        public Builder random(RandomGenerator random) {
            this.random = random;
            return this;
        }

        /** @throws IllegalArgumentException naming the setting that is wrong */
        public OutboxRelay build() {
            if (batchSize < 1 || batchSize > 1000)
                throw new IllegalArgumentException("batchSize must be between 1 and 1000, got " + batchSize);
            positive("pollInterval", pollInterval);
            positive("initialBackoff", initialBackoff);
            positive("maxBackoff", maxBackoff);
            if (maxBackoff.compareTo(initialBackoff) < 0)
                throw new IllegalArgumentException("maxBackoff must not be shorter than initialBackoff");
            positive("keyWindow", keyWindow);
            if (keyWindow.compareTo(KeyWindow.LENGTH) > 0)
                throw new IllegalArgumentException("keyWindow must be at most " + KeyWindow.LENGTH
                        + " (Idem keeps an Idempotency-Key that long), got " + keyWindow);
            Duration budget = client.config().worstCaseCallDuration();
            if (lease != null && lease.compareTo(budget) <= 0)
                throw new IllegalArgumentException(
                        "lease (" + lease + ") must be longer than the client's worst-case call (" + budget
                                + ": attempts × timeouts + waits), or a slow send could overlap another relay's; give the relay a client with fewer attempts or a longer lease");
            if (relayId == null || relayId.isBlank() || relayId.length() > 80)
                throw new IllegalArgumentException("relayId must be 1 to 80 characters");
            Objects.requireNonNull(sleeper, "sleeper");
            Objects.requireNonNull(random, "random");
            return new OutboxRelay(this);
        }

        private static void positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
        }

        private static String defaultRelayId() {
            String host;
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "localhost";
            }
            String id = host + "-" + ProcessHandle.current().pid() + "-"
                    + Integer.toHexString(new SecureRandom().nextInt(1 << 16));
            return id.length() > 80 ? id.substring(id.length() - 80) : id;
        }
    }
}
