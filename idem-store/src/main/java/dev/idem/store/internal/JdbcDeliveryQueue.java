package dev.idem.store.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.StoreException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The dispatcher's queue. "Now" is the {@code clk} common table expression of each statement: the
 * database's clock, or a bound value from the injected clock, so one statement sees one instant.
 */
final class JdbcDeliveryQueue implements DeliveryQueue {
    private static final int MAX_TRIES = 3;
    /** Keeps IN lists well under every driver's parameter limit. */
    private static final int CHUNK = 500;

    private static final String NOW = "(SELECT ms FROM clk)";
    private static final String FINISHED = "status IN ('succeeded', 'dead', 'cancelled')";

    private final Transactions transactions;
    private final DueSignal signal;
    private final Clock clock;
    private final boolean databaseClock;
    private final Dialect dialect;
    private final Completion completion;
    /** Whether {@link #claimSql} leases the rows and returns them with their schedules in one statement. */
    private final boolean joinedClaim;

    private final String claimSql;
    /** {@link #claimSql} whose first window passes over full destinations' rows: {@link #claimDuePassingOver}. */
    private final String passOverClaimSql;

    private final String reapSql;
    private final String releaseSql;
    private final String flowClaimSql;
    private final Alerts alerts;

    JdbcDeliveryQueue(
            Transactions transactions, Dialect dialect, DueSignal signal, Clock clock, boolean databaseClock) {
        this.transactions = transactions;
        this.signal = signal;
        this.clock = clock;
        this.databaseClock = databaseClock;
        this.dialect = dialect;
        this.completion = dialect.completion();
        this.joinedClaim = dialect.returningReadsJoinedTables();
        this.claimSql = joinedClaim ? claimJoinedSql(false) : claimSerialisedSql(false);
        this.passOverClaimSql = joinedClaim ? claimJoinedSql(true) : claimSerialisedSql(true);
        String toQueue = clock() + "UPDATE deliveries SET status = 'retrying', next_attempt_at = " + NOW
                + ", lease_owner = NULL, lease_expires_at = NULL, updated_at = " + NOW
                + " WHERE status = 'delivering' AND ";
        this.reapSql = toQueue + "lease_expires_at < " + NOW;
        this.releaseSql = toQueue + "lease_owner = ?";
        // flow-controlled rows are looked for among all due rows anyway (by design), so past full destinations too
        this.flowClaimSql = "WITH clk AS (SELECT CAST(? AS BIGINT) AS ms) " + leaseSql(pickSql(true, true));
        this.alerts = new Alerts(new dev.idem.core.IdGenerator(clock, new java.security.SecureRandom()));
    }

    /** {@code WITH clk AS (...)}: binds one parameter (the injected clock's now) unless the database clock is used. */
    private String clock() {
        return "WITH clk AS (SELECT " + (databaseClock ? dialect.databaseNowMillis() : "CAST(? AS BIGINT)")
                + " AS ms) ";
    }

    /** The arguments of a statement that starts with {@link #clock()}. */
    private Object[] args(Object... rest) {
        return databaseClock ? rest : withClock(clock.millis(), rest);
    }

    @Override
    public List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claim(owner, lease, limit, lookahead, fairness, claimSql);
    }

    @Override
    public List<Claim> claimDuePassingOver(
            String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claim(owner, lease, limit, lookahead, fairness, passOverClaimSql);
    }

    /** A claim with {@code pick} ({@link #claimSql} or {@link #passOverClaimSql}) for the rows without flow control. */
    private List<Claim> claim(
            String owner, Duration lease, int limit, Duration lookahead, Fairness fairness, String pick) {
        if (limit <= 0) return List.of();
        java.util.Objects.requireNonNull(owner, "owner");
        java.util.Objects.requireNonNull(fairness, "fairness");
        if (lookahead.isNegative())
            throw new IllegalArgumentException("lookahead must not be negative, got " + lookahead);
        if (dialect.concurrentClaims() && joinedClaim && noFlowControlLately()) {
            // one statement, one round trip: no BEGIN/COMMIT around a claim that is a single UPDATE ... RETURNING
            // (where claims overlap: with a single writer, a claim queues for the write lock like any other write)
            Object[] args = args(pickArgs(owner, lease, fairness.free(), lookahead, limit, fairness.otherwise()));
            return retrying(() -> {
                List<Undecodable> buried = new ArrayList<>();
                List<Claim> claims = transactions.autocommit(sql -> claimJoined(sql, pick, args, buried));
                if (!buried.isEmpty()) transactions.write(sql -> bury(sql, owner, buried));
                return claims;
            });
        }
        return retrying(() -> transactions.write(sql -> {
            Map<String, Integer> free = new HashMap<>(fairness.free());
            List<Claim> claims = new ArrayList<>();
            if (anyFlowControl(sql)) {
                // no look-ahead under flow control: a row claimed ahead would count in this second's rate and be sent
                // in the next one, and hold a parallelism slot while it waits for its instant
                claims.addAll(claimFlowControlled(sql, owner, lease, limit, Duration.ZERO, free, fairness.otherwise()));
                for (Claim c : claims) free.merge(destination(c.schedule()), -1, (a, b) -> Math.max(0, a + b));
                for (Claim c : claims)
                    free.putIfAbsent(destination(c.schedule()), Math.max(0, fairness.otherwise() - 1));
            }
            int left = limit - claims.size();
            if (left > 0) {
                Object[] args = args(pickArgs(owner, lease, free, lookahead, left, fairness.otherwise()));
                if (joinedClaim) {
                    List<Undecodable> buried = new ArrayList<>();
                    claims.addAll(claimJoined(sql, pick, args, buried));
                    bury(sql, owner, buried);
                } else {
                    claims.addAll(claimedWithSchedules(sql, owner, pick, args));
                }
            }
            return claims;
        }));
    }

    /** Whether any schedule has flow control: only then does a claim take the flow-control lock and count. */
    private static final String ANY_FLOW_CONTROL = "SELECT 1 FROM schedules WHERE flow_key IS NOT NULL LIMIT 1";
    /**
     * How long "no schedule has flow control" is believed without asking again. Believing it wrongly is safe: the claim
     * without flow control leaves flow-controlled schedules' rows out ({@code flow_key IS NULL}), so a schedule given
     * flow control meanwhile (on any node) has its rows claimed at most this much later, never past its limits.
     */
    static final long FLOW_CHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    /** When {@link #ANY_FLOW_CONTROL} last answered no; 0 while it answered yes (or was never asked). */
    private volatile long noFlowControlSeenAt;
    /** {@link #FLOW_WRITES} when it answered no. */
    private volatile long noFlowControlGeneration;
    /**
     * Schedule writes with flow control in this process: one makes every queue of the process ask again at its next
     * claim, so a schedule given flow control here is claimed under it at once (other processes: within a second).
     */
    private static final java.util.concurrent.atomic.AtomicLong FLOW_WRITES =
            new java.util.concurrent.atomic.AtomicLong();

    /** Called for every schedule row written with flow control. */
    static void flowControlWritten() {
        FLOW_WRITES.incrementAndGet();
    }

    private boolean noFlowControlLately() {
        long seen = noFlowControlSeenAt;
        return seen != 0 && System.nanoTime() - seen < FLOW_CHECK_NANOS && noFlowControlGeneration == FLOW_WRITES.get();
    }

    private boolean anyFlowControl(Sql sql) {
        long generation = FLOW_WRITES.get();
        boolean any = sql.one(ANY_FLOW_CONTROL, rs -> Boolean.TRUE).isPresent();
        noFlowControlGeneration = generation;
        noFlowControlSeenAt = any ? 0 : Math.max(1, System.nanoTime());
        return any;
    }
    /** A destination key as the claim groups by: a schedule written without one counts as its own destination. */
    private static final String DESTINATION = "COALESCE(qs.destination, qs.id)";

    /** The key {@link #DESTINATION} gives a claimed delivery's schedule. */
    private static String destination(Schedule s) {
        return s.definition().destination();
    }

    /** Candidates read per window: the claim's limit (the second window finds rows that fell due behind a backlog). */
    private static int scan(int limit) {
        return limit;
    }

    private static int cap(int otherwise) {
        return Math.min(otherwise, 1_000_000);
    }

    /** The fairness map as the JSON object {@link Dialect#jsonEntries()} reads. */
    private static String json(Map<String, Integer> free) {
        com.fasterxml.jackson.databind.node.ObjectNode o = JSON.createObjectNode();
        free.forEach((k, v) -> o.put(k, Math.max(0, Math.min(v, 1_000_000))));
        return o.toString();
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * The ids a claim takes. Two windows of due rows: the earliest (up to the claim's limit, locked skipping rows
     * another claim holds on PostgreSQL: the classic queue claim, so a burst to one destination costs what it always
     * did), of any destination, or with {@code passOverFull} of destinations with a free slot only; and, among the
     * latest {@code limit} due rows, those of other destinations with a free slot (rows that just fell due, which would
     * otherwise wait behind one destination's backlog filling the first window). Each destination's candidates are
     * ranked by due time; the first of every destination goes first, then the second of every destination, and so on,
     * within each destination's free slots; the chosen rows of the second window are locked at the end, skipping any
     * another claim holds.
     *
     * <p>{@code flowControlled} picks between the two kinds of schedule; flow-controlled rows are also ranked per key
     * and kept within the key's parallelism (live claims) and rate (claims this second).
     */
    private String pickSql(boolean flowControlled, boolean passOverFull) {
        String lock = dialect.forUpdateOf("q") + dialect.skipLockedClause();
        String flowColumns = flowControlled ? ", qs.flow_key, qs.flow_parallelism AS par, qs.flow_rate AS rate" : "";
        // The full destinations are a filter (NOT IN, a hashed subplan on PostgreSQL), never a join: as NOT EXISTS,
        // statistics that promised fewer due rows than the limit while thousands were due planned a hash anti-join,
        // which loses the due index's order, so the window read every due row and looked up its schedule, then sorted
        // them for its LIMIT (10,000 rows and 40,000 buffers for a claim of 500; idem-bench/README.md, "Statement
        // costs in isolation"). A destination key is never null (DESTINATION falls back to the schedule's id), so
        // NOT IN means what NOT EXISTS did.
        //
        // The first window leaves them out only in a claim that passes over them (claimDuePassingOver): with nothing
        // that indexes a row's destination, leaving out a full destination's backlog reads all of it and looks up each
        // row's schedule (1.2 s a claim at 280,000 due, against 10 ms; a hanging destination's backlog made every claim
        // that slow). Otherwise its full destinations' rows are dropped where the picks are capped at each
        // destination's free slots, and the second window finds the rows of other destinations that just fell due.
        String filters = " AND qs.status NOT IN ('paused', 'deleted')"
                + (flowControlled ? " AND qs.flow_key IS NOT NULL" : " AND qs.flow_key IS NULL");
        String notFull = " AND " + DESTINATION + " NOT IN (SELECT dest FROM caps WHERE free <= 0)";
        // the look-ahead is for first attempts (rows written ahead for
        // their instant); a retry is claimed when it is due
        String due = "q.status IN ('scheduled', 'retrying') AND q.next_attempt_at <= " + NOW
                + " + ? AND (q.status = 'scheduled' OR " + "q.next_attempt_at <= " + NOW + ")";
        StringBuilder q = new StringBuilder("WITH caps AS (SELECT key AS dest, CAST(value AS INTEGER) AS free FROM ")
                .append(dialect.jsonEntries())
                .append(")");
        if (flowControlled) {
            q.append(", live AS (SELECT s.flow_key, COUNT(*) AS n FROM deliveries d" + scheduleOf("s", "d")
                            + " WHERE d.status = 'delivering' AND s.flow_key IS NOT NULL GROUP BY s.flow_key)")
                    .append(", used AS (SELECT flow_key, used AS n FROM flow_usage WHERE window_second = " + NOW
                            + " / 1000)");
        }
        q.append(", earliest AS (SELECT q.id, ")
                .append(DESTINATION)
                .append(" AS dest, q.next_attempt_at AS due")
                .append(flowColumns)
                .append(" FROM deliveries q")
                .append(scheduleOf("qs", "q"))
                .append(" WHERE ")
                .append(due)
                .append(filters)
                .append(passOverFull ? notFull : "")
                .append(" ORDER BY q.next_attempt_at LIMIT ?")
                .append(lock)
                .append(")")
                .append(", latest AS (SELECT q.id, ")
                .append(DESTINATION)
                .append(" AS dest, q.next_attempt_at AS due")
                .append(flowColumns)
                .append(" FROM (SELECT q.id, q.schedule_id, q.next_attempt_at FROM deliveries q WHERE ")
                .append(due)
                .append(" ORDER BY q.next_attempt_at DESC LIMIT ?) q")
                .append(scheduleOf("qs", "q"))
                .append(" WHERE ")
                .append(DESTINATION)
                .append(" NOT IN (SELECT dest FROM earliest)")
                .append(filters)
                .append(notFull)
                .append(")")
                .append(", cand AS (SELECT * FROM earliest UNION SELECT * FROM latest)")
                .append(
                        ", ranked AS (SELECT cand.*, ROW_NUMBER() OVER (PARTITION BY cand.dest ORDER BY cand.due, cand.id) AS rn")
                .append(
                        flowControlled
                                ? ", ROW_NUMBER() OVER (PARTITION BY cand.flow_key ORDER BY cand.due, cand.id) AS rk"
                                : "")
                .append(" FROM cand)")
                .append(
                        ", picked AS (SELECT ranked.id, ranked.rn, ranked.due FROM ranked LEFT JOIN caps ON caps.dest = ranked.dest");
        if (flowControlled) {
            q.append(
                            " LEFT JOIN live ON live.flow_key = ranked.flow_key LEFT JOIN used ON used.flow_key = ranked.flow_key")
                    .append(" WHERE (ranked.par IS NULL OR ranked.rk <= ranked.par - COALESCE(live.n, 0))")
                    .append(" AND (ranked.rate IS NULL OR ranked.rk <= ranked.rate - COALESCE(used.n, 0)) AND");
        } else {
            q.append(" WHERE");
        }
        // the picked rows in their order, each locked as it is read, until the limit is reached: a row another claim
        // holds, or one that is no longer due, is passed over for the next one
        return q.append(" ranked.rn <= COALESCE(caps.free, ?))")
                .append(" SELECT p.id FROM (SELECT id, rn, due FROM picked ORDER BY rn, due) p")
                .append(dialect.oneRowByKey("deliveries", "q", "q.id = p.id", true))
                .append(" WHERE q.status IN ('scheduled', 'retrying') ORDER BY p.rn, p.due LIMIT ?")
                .toString();
    }

    /** The schedule of each row of {@code rows}, as {@code alias}: one lookup by key per row, never a scan of them all. */
    private String scheduleOf(String alias, String rows) {
        return dialect.oneRowByKey("schedules", alias, alias + ".id = " + rows + ".schedule_id", false);
    }

    /** The parameters of a claim statement after its clock's: the lease's, then {@link #pickSql}'s. */
    private static Object[] pickArgs(
            String owner, Duration lease, Map<String, Integer> free, Duration lookahead, int limit, int otherwise) {
        return new Object[] {
            owner,
            lease.toMillis(),
            json(free),
            lookahead.toMillis(),
            scan(limit),
            lookahead.toMillis(),
            scan(limit),
            cap(otherwise),
            limit
        };
    }

    /** {@code rest} after the clock's parameter, {@code now}. */
    private static Object[] withClock(long now, Object[] rest) {
        Object[] out = new Object[rest.length + 1];
        out[0] = now;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
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
            Map<String, Integer> free,
            Duration lookahead,
            int limit,
            int otherwise) {
        Object[] pick = pickArgs(owner, lease, free, lookahead, limit, otherwise);
        if (flowControlled) return new ClaimStatement(flowClaimSql, withClock(now, pick));
        return new ClaimStatement(claimSql, databaseClock ? pick : withClock(now, pick));
    }

    record ClaimStatement(String sql, Object... args) {}

    /** One statement: pick the rows, lease them, return them with their schedules. */
    private String claimJoinedSql(boolean passOverFull) {
        String returning =
                Arrays.stream(Rows.DELIVERY_READ.split(", ")).map(c -> "d." + c).collect(Collectors.joining(", "));
        return clock() + "UPDATE deliveries d SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW
                + " + ?, "
                + "attempt_count = d.attempt_count + 1, updated_at = " + NOW + " FROM schedules s "
                + "WHERE s.id = d.schedule_id AND " + dialect.inSubquery("d.id", pickSql(false, passOverFull)) + " "
                + "RETURNING " + returning + ", " + Rows.scheduleColumnsAs("s", "s_") + ", s."
                + Rows.DEFINITION_REVISION + " AS s_" + Rows.DEFINITION_REVISION;
    }

    /** Where RETURNING cannot read a joined table (SQLite): the schedules are read next, in the same transaction. */
    private String claimSerialisedSql(boolean passOverFull) {
        return clock() + leaseSql(pickSql(false, passOverFull));
    }

    private String leaseSql(String pick) {
        return "UPDATE deliveries SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW + " + ?, "
                + "attempt_count = attempt_count + 1, updated_at = " + NOW + " WHERE " + dialect.inSubquery("id", pick)
                + " "
                + "RETURNING " + Rows.DELIVERY_READ;
    }

    /**
     * Claims flow-controlled deliveries under the flow-control lock, at one instant read once (so the rate's second
     * and the claims agree), and counts them into this second's usage of their keys.
     */
    private List<Claim> claimFlowControlled(
            Sql sql,
            String owner,
            Duration lease,
            int limit,
            Duration lookahead,
            Map<String, Integer> free,
            int otherwise) {
        if (dialect.flowControlLock() != null) sql.one(dialect.flowControlLock(), rs -> Boolean.TRUE);
        long now = nowMillis(sql);
        List<Claim> claims = claimedWithSchedules(
                sql, owner, flowClaimSql, withClock(now, pickArgs(owner, lease, free, lookahead, limit, otherwise)));
        Map<String, Integer> perKey = new java.util.TreeMap<>();
        for (Claim c : claims)
            perKey.merge(
                    c.schedule()
                            .definition()
                            .flowControl()
                            .scopedKey(c.schedule().tenant()),
                    1,
                    Integer::sum);
        long second = now / 1000;
        sql.batch(
                "INSERT INTO flow_usage (flow_key, window_second, used) VALUES (?, ?, ?) ON CONFLICT (flow_key) DO UPDATE SET "
                        + "used = CASE WHEN flow_usage.window_second = excluded.window_second THEN flow_usage.used + excluded.used "
                        + "ELSE excluded.used END, window_second = excluded.window_second",
                perKey.entrySet().stream()
                        .map(e -> new Object[] {e.getKey(), second, e.getValue()})
                        .toList());
        return claims;
    }

    /**
     * Claims with {@code statement} ({@link #claimSql} or {@link #passOverClaimSql}), which returns the rows joined to
     * their schedules; rows that do not decode go to {@code buried} (for {@link #bury}).
     */
    private List<Claim> claimJoined(Sql sql, String statement, Object[] args, List<Undecodable> buried) {
        // Deliveries of one schedule share its row: decode its definition once per batch.
        Map<String, Schedule> decoded = new HashMap<>();
        Map<String, String> undecodable = new HashMap<>();
        List<Claim> claims = new ArrayList<>();
        sql.query(
                statement,
                rs -> {
                    String scheduleId = rs.getString("s_id");
                    try {
                        Schedule s = decoded.get(scheduleId);
                        if (s == null && !undecodable.containsKey(scheduleId)) {
                            try {
                                s = Rows.schedule(rs, "s_");
                                decoded.put(scheduleId, s);
                            } catch (RuntimeException | SQLException e) {
                                undecodable.put(scheduleId, e.toString());
                            }
                        }
                        if (s != null)
                            claims.add(new Claim(Rows.delivery(rs), s, rs.getLong("s_" + Rows.DEFINITION_REVISION)));
                        else
                            buried.add(new Undecodable(
                                    rs.getString("id"),
                                    rs.getInt("attempt_count"),
                                    "the stored definition of schedule " + scheduleId + " cannot be read: "
                                            + undecodable.get(scheduleId)));
                    } catch (RuntimeException | SQLException e) {
                        buried.add(new Undecodable(
                                rs.getString("id"),
                                rs.getInt("attempt_count"),
                                "the stored delivery cannot be read: " + e));
                    }
                    return Boolean.TRUE;
                },
                args);
        return claims;
    }

    /** Runs a claim statement returning delivery rows, then reads their schedules. */
    private List<Claim> claimedWithSchedules(Sql sql, String owner, String claimSql, Object[] args) {
        List<Undecodable> buried = new ArrayList<>();
        List<Delivery> claimed = new ArrayList<>();
        sql.query(
                claimSql,
                rs -> {
                    try {
                        claimed.add(Rows.delivery(rs));
                    } catch (RuntimeException | SQLException e) {
                        buried.add(new Undecodable(
                                rs.getString("id"),
                                rs.getInt("attempt_count"),
                                "the stored delivery cannot be read: " + e));
                    }
                    return Boolean.TRUE;
                },
                args);
        Map<String, Schedule> schedules = new HashMap<>();
        Map<String, Long> revisions = new HashMap<>();
        Map<String, String> undecodable = new HashMap<>();
        List<String> ids = claimed.stream().map(Delivery::scheduleId).distinct().toList();
        for (List<String> chunk : chunks(ids)) {
            sql.query(
                    "SELECT " + Rows.SCHEDULE + ", " + Rows.DEFINITION_REVISION + " FROM schedules WHERE id IN ("
                            + Sql.marks(chunk.size()) + ")",
                    rs -> {
                        try {
                            Schedule s = Rows.schedule(rs);
                            schedules.put(s.id(), s);
                            revisions.put(s.id(), rs.getLong(Rows.DEFINITION_REVISION));
                        } catch (RuntimeException | SQLException e) {
                            undecodable.put(rs.getString("id"), e.toString());
                        }
                        return Boolean.TRUE;
                    },
                    chunk.toArray());
        }
        List<Claim> claims = new ArrayList<>();
        for (Delivery d : claimed) {
            Schedule s = schedules.get(d.scheduleId());
            if (s != null) claims.add(new Claim(d, s, revisions.get(s.id())));
            else
                buried.add(new Undecodable(
                        d.id(),
                        d.attemptCount(),
                        "the stored definition of schedule " + d.scheduleId() + " cannot be read: "
                                + undecodable.getOrDefault(d.scheduleId(), "not found")));
        }
        bury(sql, owner, buried);
        return claims;
    }

    /** A claimed delivery that cannot be sent because a stored row does not decode. */
    private record Undecodable(String deliveryId, int attempt, String error) {}

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JdbcDeliveryQueue.class);
    private static final dev.idem.core.IdGenerator ATTEMPT_IDS = dev.idem.core.IdGenerator.system();

    /**
     * Claimed rows that cannot be decoded (a definition written by a newer version, or damaged by hand) become
     * {@code dead} at once with a failed attempt saying why, in the claim's own transaction: thrown instead, the claim
     * would roll back (or, claimed in autocommit, be released) and the same rows would be claimed and fail again on
     * every claim, holding up every other delivery. A replay once the row is fixed sends it again.
     */
    private Void bury(Sql sql, String owner, List<Undecodable> buried) {
        if (buried.isEmpty()) return null;
        long now = nowMillis(sql);
        sql.batch(
                "INSERT INTO attempts (" + Rows.ATTEMPT
                        + ") VALUES (?, ?, ?, ?, 0, NULL, ?, NULL) ON CONFLICT DO NOTHING",
                buried.stream()
                        .map(b -> new Object[] {
                            ATTEMPT_IDS.next("att"), b.deliveryId(), b.attempt(), now, "not sent: " + b.error()
                        })
                        .toList());
        sql.batch(
                "UPDATE deliveries SET status = 'dead', next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, "
                        + "last_error = ?, updated_at = ? WHERE id = ? AND status = 'delivering' AND lease_owner = ?",
                buried.stream()
                        .map(b -> new Object[] {"not sent: " + b.error(), now, b.deliveryId(), owner})
                        .toList());
        // a one-shot whose delivery is dead now has nothing left to attempt (SPEC section 2), as after any outcome
        Settlement.afterOutcomes(
                sql, dialect, buried.stream().map(Undecodable::deliveryId).toList(), now);
        for (Undecodable b : buried)
            log.error(
                    "delivery {} is dead without an attempt on the wire: {}; fix the row and replay it (POST /v1/deliveries/{}/replay)",
                    b.deliveryId(),
                    b.error(),
                    b.deliveryId());
        return null;
    }

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
        boolean[] alerted = new boolean[1];
        Completed done = retrying(() -> transactions.write(sql -> {
            long now = nowMillis(sql);
            Completion.Applied applied = completion.apply(sql, owner, outcomes, now);
            Completed completed = applied.completed();
            // a schedule whose last delivery just became final is completed (SPEC section 2), in the same transaction
            Settlement.ofLockedSchedules(sql, applied.ended(), now);
            // the alerts of what this batch made dead or paused, as durable as the outcomes (see Alerts)
            alerted[0] = alerts.raise(new JdbcTx(sql, dialect, signal), sql, outcomes, completed, now);
            return completed;
        }));
        if (alerted[0]) signal.afterCommit();
        return done;
    }

    @Override
    public int reapExpired() {
        int reaped = retrying(() -> transactions.write(sql -> sql.update(reapSql, args())));
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
        return sql.update(releaseSql, args(owner));
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
            return sql.update(releaseSql + " AND " + notKept.sql(), args(ownerAndKept));
        }));
    }

    @Override
    public Optional<Instant> nextDueAt(Fairness fairness) {
        NextDueStatement q = nextDueStatement(clock.millis(), fairness);
        return transactions.autocommit(sql -> sql.one(q.sql(), rs -> Sql.instant(rs, "next_attempt_at"), q.args()));
    }

    /**
     * Pending rows {@link #nextDueAt} reads per window. Bounded because the rows it must pass over (a full destination's
     * backlog, a paused schedule's rows) have no index of their own: looking for the first row past them walked the
     * whole backlog and looked up each row's schedule. With 280,000 rows due to one full destination that took 1.1 s,
     * once after every claim that did not come back full (idem-engine/README.md, "What is left", stop 27).
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
        String window = "SELECT q.schedule_id, q.next_attempt_at FROM deliveries q WHERE q.status IN ('scheduled', "
                + "'retrying')%s ORDER BY q.next_attempt_at LIMIT " + NEXT_DUE_SCAN;
        String q = clock() + "SELECT c.next_attempt_at FROM (SELECT * FROM (" + String.format(window, "")
                + ") head UNION ALL SELECT * FROM (" + String.format(window, " AND q.next_attempt_at > " + NOW)
                + ") ahead) c" + scheduleOf("qs", "c")
                + " WHERE qs.status NOT IN ('paused', 'deleted') "
                + (excluding
                        ? "AND " + DESTINATION + " NOT IN (SELECT j.key FROM " + dialect.jsonEntries()
                                + " j WHERE CAST(j.value AS INTEGER) <= 0) "
                        : "")
                + "ORDER BY c.next_attempt_at LIMIT 1";
        Object[] rest = excluding ? new Object[] {json(fairness.free())} : new Object[0];
        return new NextDueStatement(q, databaseClock ? rest : withClock(now, rest));
    }

    record NextDueStatement(String sql, Object... args) {}

    @Override
    public Instant now() {
        if (!databaseClock) return Instant.ofEpochMilli(clock.millis());
        return Instant.ofEpochMilli(transactions.autocommit(this::nowMillis));
    }

    /** The store's now inside {@code sql}'s transaction (the node registry uses the same clock as claims). */
    long nowMillis(Sql sql) {
        if (!databaseClock) return clock.millis();
        return sql.one("SELECT " + dialect.databaseNowMillis(), rs -> rs.getLong(1))
                .orElseThrow();
    }

    @Override
    public int pruneFinished(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> transactions.write(sql -> {
            List<String> ids = sql.query(
                    "DELETE FROM deliveries WHERE "
                            + dialect.inSubquery(
                                    "id",
                                    "SELECT id FROM deliveries WHERE " + FINISHED
                                            + " AND updated_at < ? ORDER BY updated_at LIMIT ?")
                            + " AND " + FINISHED + " RETURNING id",
                    rs -> rs.getString(1),
                    before,
                    limit);
            for (List<String> chunk : chunks(ids))
                sql.update(
                        "DELETE FROM attempts WHERE delivery_id IN (" + Sql.marks(chunk.size()) + ")", chunk.toArray());
            return ids.size();
        }));
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
    private static <T> T retrying(Supplier<T> work) {
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
