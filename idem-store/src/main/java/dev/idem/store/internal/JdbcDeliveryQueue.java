package dev.idem.store.internal;

import static dev.idem.store.internal.QueueClock.NOW;

import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The dispatcher's queue. "Now" is the {@code clk} common table expression of each statement ({@link QueueClock}): the
 * database's clock, or a bound value from the injected clock, so one statement sees one instant. Claims are
 * {@link Claims}' (their statements {@link ClaimSql}'s); outcomes are applied by {@link OutcomeWriter}.
 */
final class JdbcDeliveryQueue implements DeliveryQueue {
    private static final int MAX_TRIES = 3;
    /** Keeps IN lists well under every driver's parameter limit. */
    private static final int CHUNK = 500;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcDeliveryQueue.class);

    private final Transactions transactions;
    private final DueSignal signal;
    private final QueueClock clock;
    private final Dialect dialect;
    private final ClaimSql statements;
    private final Claims claims;
    private final OutcomeWriter outcomeWriter;

    private final String reapSql;
    private final String releaseSql;

    JdbcDeliveryQueue(
            Transactions transactions,
            Dialect dialect,
            DueSignal signal,
            Clock clock,
            boolean databaseClock,
            dev.idem.core.IdGenerator ids) {
        this.transactions = transactions;
        this.signal = signal;
        this.clock = new QueueClock(dialect, clock, databaseClock);
        this.dialect = dialect;
        this.statements = new ClaimSql(dialect, this.clock);
        this.claims = new Claims(transactions, dialect, this.clock, statements, ids);
        this.outcomeWriter = new OutcomeWriter(dialect, signal, ids);
        String toQueue = this.clock.cte() + "UPDATE deliveries SET status = 'retrying', next_attempt_at = " + NOW
                + ", lease_owner = NULL, lease_expires_at = NULL, updated_at = " + NOW
                + " WHERE status = 'delivering' AND ";
        this.reapSql = toQueue + "lease_expires_at < " + NOW;
        this.releaseSql = toQueue + "lease_owner = ?";
    }

    @Override
    public List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claims.claimDue(owner, lease, limit, lookahead, fairness);
    }

    @Override
    public List<Claim> claimDuePassingOver(
            String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claims.claimDuePassingOver(owner, lease, limit, lookahead, fairness);
    }

    /**
     * A claim statement as {@link #claimDue} runs it, with its parameters (the clock's from {@code now}), for tests of
     * its plan: the flow-controlled claim's, or the other one's.
     */
    ClaimStatement claimStatement(
            boolean flowControlled,
            long now,
            String owner,
            Duration lease,
            java.util.Map<String, Integer> free,
            Duration lookahead,
            int limit,
            int otherwise) {
        return statements.claimStatement(flowControlled, now, owner, lease, free, lookahead, limit, otherwise);
    }

    record ClaimStatement(String sql, Object... args) {}

    /** What {@link #unclaim} sets (its one parameter is now): the row as it was before its claim. */
    static final String UNCLAIMED = "status = CASE WHEN attempt_count <= 1 AND NOT replayed THEN 'scheduled' "
            + "ELSE 'retrying' END, attempt_count = attempt_count - 1, lease_owner = NULL, lease_expires_at = NULL, "
            + "updated_at = ?";

    @Override
    public int unclaim(String owner, List<Claim> claims) {
        java.util.Objects.requireNonNull(owner, "owner");
        if (claims.isEmpty()) return 0;
        return retrying(() -> transactions.write(sql -> updateClaims(sql, UNCLAIMED, owner, claims, nowMillis(sql))));
    }

    /**
     * Applies {@code set} (whose one parameter is now) to each of {@code claims} while {@code owner} still holds that
     * very claim (delivering, leased to it, the same attempt); returns how many it applied to.
     */
    static int updateClaims(Sql sql, String set, String owner, List<Claim> claims, long now) {
        int[] counts = sql.batch(
                "UPDATE deliveries SET " + set
                        + " WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempt_count = ?",
                claims.stream()
                        .map(c -> new Object[] {
                            now, c.delivery().id(), owner, c.delivery().attemptCount()
                        })
                        .toList());
        int n = 0;
        for (int c : counts) n += Math.max(c, 0);
        return n;
    }

    @Override
    public List<Claim> confirmHeld(String owner, List<Claim> claims) {
        java.util.Objects.requireNonNull(owner, "owner");
        if (claims.isEmpty()) return List.of();
        // one statement per 500 rows, each row judged on its own: no transaction needed around them
        HeldCheck.Verdicts verdicts =
                retrying(() -> transactions.autocommit(sql -> HeldCheck.read(sql, owner, claims)));
        // what goes back and what is cancelled: one write transaction (on SQLite, one turn of the single writer)
        if (!verdicts.giveBack().isEmpty() || !verdicts.cancel().isEmpty())
            retrying(() -> transactions.write(sql -> HeldCheck.settle(sql, owner, verdicts, nowMillis(sql))));
        return verdicts.start();
    }

    @Override
    public int fillRouting(int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> {
            List<Schedule> missing = sql.query(
                    "SELECT " + Rows.SCHEDULE + " FROM schedules WHERE destination IS NULL ORDER BY id LIMIT ?",
                    Rows::schedule,
                    limit);
            sql.batch(
                    "UPDATE schedules SET " + JdbcSchedules.ROUTING.replace(",", " = ?,")
                            + " = ? WHERE id = ? AND destination IS NULL",
                    missing.stream()
                            .map(s -> {
                                Object[] r = JdbcSchedules.routing(s);
                                return new Object[] {r[0], r[1], r[2], r[3], s.id()};
                            })
                            .toList());
            return missing.size();
        }));
    }

    @Override
    public Completed complete(String owner, List<Outcome> outcomes) {
        if (outcomes.isEmpty()) return Completed.NONE;
        java.util.Objects.requireNonNull(owner, "owner");
        OutcomeWriter.Written written =
                retrying(() -> transactions.write(sql -> outcomeWriter.write(sql, owner, outcomes, nowMillis(sql))));
        if (written.alerted()) signal.afterCommit();
        return written.completed();
    }

    /** The reaper's statement, as {@link #reapExpired} runs it (for the plan tests). */
    String reapStatement() {
        return reapSql;
    }

    @Override
    public int reapExpired() {
        int reaped = retrying(() -> transactions.write(sql -> sql.update(reapSql, clock.args())));
        // the reaper's beat (every few seconds) also keeps the planner's statistics of the queue fresh; a refresh that
        // cannot run now (its lock held by a vacuum, say) waits for the next beat and never costs the reaper its work
        try {
            dialect.refreshQueueStatistics(transactions);
        } catch (StoreException e) {
            log.debug("queue statistics not refreshed this time: {}", e.getMessage());
        }
        return reaped;
    }

    @Override
    public int release(String owner) {
        return retrying(() -> transactions.write(sql -> releaseHeldBy(sql, owner)));
    }

    /**
     * Returns every delivery {@code owner} holds to the queue inside the caller's transaction: the takeover of a dead
     * node's claims, in the same transaction that declares it dead ({@link JdbcNodes}).
     */
    int releaseHeldBy(Sql sql, String owner) {
        return sql.update(releaseSql, clock.args(owner));
    }

    @Override
    public int releaseExcept(String owner, java.util.Collection<String> keep) {
        java.util.Objects.requireNonNull(owner, "owner");
        if (keep.isEmpty()) return release(owner);
        String[] kept = keep.toArray(new String[0]);
        return retrying(() -> transactions.write(sql -> {
            Dialect.Clause notKept = dialect.noneOf(sql, "id", kept);
            Object[] ownerAndKept = new Object[notKept.args().length + 1];
            ownerAndKept[0] = owner;
            System.arraycopy(notKept.args(), 0, ownerAndKept, 1, notKept.args().length);
            return sql.update(releaseSql + " AND " + notKept.sql(), clock.args(ownerAndKept));
        }));
    }

    @Override
    public Optional<Instant> nextDueAt(Fairness fairness) {
        NextDueStatement q = nextDueStatement(clock.injectedMillis(), fairness);
        return transactions.autocommit(sql -> sql.one(q.sql(), rs -> Sql.instant(rs, "next_attempt_at"), q.args()));
    }

    /**
     * Pending rows {@link #nextDueAt} reads per window. Bounded because the rows it must pass over (a full destination's
     * backlog; a paused schedule's rows that went pending after its pause, which are not marked held) have no index of
     * their own: looking for the first row past them walked the whole backlog and looked up each row's schedule. With
     * 280,000 rows due to one full destination that took 1.1 s, once after every claim that did not come back full
     * (idem-bench/runs/2026-11-27-engine-design-log.md, "Stop 27").
     */
    static final int NEXT_DUE_SCAN = 256;

    /**
     * {@link #nextDueAt} as it runs, for tests of its plan: the earliest row of a destination with a free slot among
     * two windows of {@link #NEXT_DUE_SCAN} pending rows each, the earliest and the earliest not yet due. A claimable
     * row behind more than a window of rows it must pass over is not seen here: a claim that passes over full
     * destinations' rows ({@link #claimDuePassingOver}, which the engine runs at most once a second while a destination
     * is full) takes it, and the loop that asks wakes at least every poll interval and at every answer of the
     * destination whose backlog it is (Dispatcher).
     */
    NextDueStatement nextDueStatement(long now, Fairness fairness) {
        boolean excluding = fairness.anyFull();
        String window = "SELECT q.schedule_id, q.next_attempt_at FROM deliveries q WHERE " + ClaimSql.PENDING
                + "%s ORDER BY q.next_attempt_at LIMIT " + NEXT_DUE_SCAN;
        String q = clock.cte() + "SELECT c.next_attempt_at FROM (SELECT * FROM (" + String.format(window, "")
                + ") head UNION ALL SELECT * FROM (" + String.format(window, " AND q.next_attempt_at > " + NOW)
                + ") ahead) c" + statements.scheduleOf("qs", "c")
                + " WHERE qs.status NOT IN ('paused', 'deleted') "
                + (excluding
                        ? "AND " + ClaimSql.DESTINATION + " NOT IN (SELECT j.key FROM " + dialect.jsonEntries()
                                + " j WHERE CAST(j.value AS INTEGER) <= 0) "
                        : "")
                + "ORDER BY c.next_attempt_at LIMIT 1";
        Object[] rest = excluding ? new Object[] {ClaimSql.json(fairness.free())} : new Object[0];
        return new NextDueStatement(q, clock.databaseClock() ? rest : QueueClock.withClock(now, rest));
    }

    record NextDueStatement(String sql, Object... args) {}

    @Override
    public Instant now() {
        if (!clock.databaseClock()) return Instant.ofEpochMilli(clock.injectedMillis());
        return Instant.ofEpochMilli(transactions.autocommit(this::nowMillis));
    }

    /** The store's now inside {@code sql}'s transaction (the node registry uses the same clock as claims). */
    long nowMillis(Sql sql) {
        return clock.nowMillis(sql);
    }

    @Override
    public int pruneFinished(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> Pruning.finishedDeliveries(sql, dialect, before, limit)));
    }

    @Override
    public int pruneSettledSchedules(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> Pruning.settledSchedules(sql, dialect, before, limit)));
    }

    @Override
    public int pruneMessages(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> Pruning.messages(sql, dialect, before, limit)));
    }

    @Override
    public int pruneFinishCounts(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> FinishCounts.prune(sql, dialect, before, limit)));
    }

    @Override
    public long reclaimSpace(int pages) {
        if (pages <= 0) return 0;
        return retrying(() -> transactions.write(sql -> dialect.reclaimFreePages(sql, pages)));
    }

    @Override
    public int pruneFlowUsage(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> Pruning.flowUsage(sql, dialect, before, limit)));
    }

    @Override
    public long depth() {
        return transactions.autocommit(
                sql -> sql.one("SELECT COUNT(*) FROM deliveries WHERE " + JdbcDeliveries.PENDING, rs -> rs.getLong(1))
                        .orElse(0L));
    }

    @Override
    public void notifyDue() {
        signal.now();
    }

    /** Runs a short queue transaction again when it lost a deadlock or serialization race. */
    static <T> T retrying(Supplier<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.get();
            } catch (StoreException e) {
                if (!e.transientFailure() || attempt >= MAX_TRIES) throw e;
                try {
                    Thread.sleep(5L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    static List<List<String>> chunks(List<String> ids) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += CHUNK) out.add(ids.subList(i, Math.min(ids.size(), i + CHUNK)));
        return out;
    }
}
