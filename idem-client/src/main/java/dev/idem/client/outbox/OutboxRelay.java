package dev.idem.client.outbox;

import dev.idem.client.IdemClient;
import dev.idem.client.IdemException;
import dev.idem.client.Sleeper;
import dev.idem.client.internal.Backoff;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.outbox.OutboxTable.Claimed;
import dev.idem.wire.KeyWindow;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
    private final OutboxTable outboxRows;
    private volatile boolean running;
    private Thread thread;

    private OutboxRelay(Builder b) {
        this.outbox = b.outbox;
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
        this.outboxRows = new OutboxTable(b.dataSource, table, relayId);
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
        List<Claimed> claimed = outboxRows.claim(token, now, leaseEnd, batchSize);
        int sent = 0;
        for (int i = 0; i < claimed.size(); i++) {
            Claimed row = claimed.get(i);
            Instant t = clock.instant();
            if (!running && thread != null || t.plus(callBudget).isAfter(leaseEnd)) {
                // too little lease left to finish a call in it (or closing): the rest go back now, for any relay
                for (Claimed rest : claimed.subList(i, claimed.size()))
                    outboxRows.update(rest.id(), d -> d.release(table), t.toEpochMilli(), rest.id(), token);
                break;
            }
            if (send(row, token, t)) sent++;
        }
        return sent;
    }

    private boolean send(Claimed row, String token, Instant now) {
        if (row.firstSentAt() != null
                && row.attempts() > 1
                && Duration.between(row.firstSentAt(), now).compareTo(keyWindow) > 0) {
            outboxRows.update(
                    row.id(),
                    d -> d.markFailed(table),
                    "key_window_passed: first sent " + row.firstSentAt() + "; Idem keeps a key " + KeyWindow.LENGTH
                            + ", so sending it again could create a second schedule. Check Idem for it, then enqueue a new row if it is missing",
                    row.id(),
                    token);
            return false;
        }
        ScheduleCreate request;
        try {
            request = ScheduleCreate.fromJson(row.request());
        } catch (IllegalArgumentException e) {
            outboxRows.update(
                    row.id(), d -> d.markFailed(table), "unreadable_request: " + e.getMessage(), row.id(), token);
            return false;
        }
        try {
            Schedule s = client.schedules().create(request, row.options());
            if (outboxRows.update(
                            row.id(),
                            d -> d.markSent(table),
                            s.id(),
                            clock.instant().toEpochMilli(),
                            row.id(),
                            token)
                    == 0)
                log.log(
                        System.Logger.Level.WARNING,
                        "outbox row {0} was sent (schedule {1}) but its claim had passed to another relay",
                        row.id(),
                        s.id());
            return true;
        } catch (IdemException e) {
            String error = e.type() + (e.code() == null ? "" : "/" + e.code()) + ": " + e.getMessage();
            if (e.retryable()) {
                Instant next = clock.instant().plus(backoff.delay(row.attempts(), random));
                outboxRows.update(row.id(), d -> d.markRetry(table), next.toEpochMilli(), error, row.id(), token);
                log.log(
                        System.Logger.Level.INFO,
                        "outbox row {0} not sent (attempt {1}), retried at {2}: {3}",
                        row.id(),
                        row.attempts(),
                        next,
                        error);
            } else {
                outboxRows.update(row.id(), d -> d.markFailed(table), error, row.id(), token);
                log.log(
                        System.Logger.Level.WARNING,
                        "outbox row {0} refused by Idem, marked failed: {1}",
                        row.id(),
                        error);
            }
            return false;
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
            n = outboxRows.update("(prune)", d -> d.pruneSent(table), cutoff, 1000);
            total += n;
        } while (n == 1000);
        return total;
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
