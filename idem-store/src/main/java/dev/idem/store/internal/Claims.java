package dev.idem.store.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Fairness;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The queue's claims ({@link dev.idem.core.store.DeliveryQueue#claimDue}): one statement where it can, else a
 * transaction that claims the flow-controlled rows under their lock first; rows that do not decode are buried.
 */
final class Claims {
    private final Transactions transactions;
    private final Dialect dialect;
    private final QueueClock clock;
    private final ClaimSql statements;
    /** The ids of the attempts that say why a buried row was not sent. */
    private final dev.idem.core.IdGenerator attemptIds;

    Claims(
            Transactions transactions,
            Dialect dialect,
            QueueClock clock,
            ClaimSql statements,
            dev.idem.core.IdGenerator attemptIds) {
        this.transactions = transactions;
        this.dialect = dialect;
        this.clock = clock;
        this.statements = statements;
        this.attemptIds = attemptIds;
    }

    List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claim(owner, lease, limit, lookahead, fairness, statements.claimSql);
    }

    List<Claim> claimDuePassingOver(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return claim(owner, lease, limit, lookahead, fairness, statements.passOverClaimSql);
    }

    /** A claim with {@code pick} ({@link ClaimSql#claimSql} or {@link ClaimSql#passOverClaimSql}) for the rows without flow control. */
    private List<Claim> claim(
            String owner, Duration lease, int limit, Duration lookahead, Fairness fairness, String pick) {
        if (limit <= 0) return List.of();
        java.util.Objects.requireNonNull(owner, "owner");
        java.util.Objects.requireNonNull(fairness, "fairness");
        if (lookahead.isNegative())
            throw new IllegalArgumentException("lookahead must not be negative, got " + lookahead);
        if (dialect.concurrentClaims() && statements.joinedClaim && noFlowControlLately()) {
            // one statement, one round trip: no BEGIN/COMMIT around a claim that is a single UPDATE ... RETURNING
            // (where claims overlap: with a single writer, a claim queues for the write lock like any other write)
            Object[] args = clock.args(
                    ClaimSql.pickArgs(owner, lease, fairness.free(), lookahead, limit, fairness.otherwise()));
            return JdbcDeliveryQueue.retrying(() -> {
                List<Undecodable> buried = new ArrayList<>();
                List<Claim> claims = transactions.autocommit(sql -> claimJoined(sql, pick, args, buried));
                if (!buried.isEmpty()) transactions.write(sql -> bury(sql, owner, buried));
                return claims;
            });
        }
        return JdbcDeliveryQueue.retrying(() -> transactions.write(sql -> {
            Map<String, Integer> free = new HashMap<>(fairness.free());
            List<Claim> claims = new ArrayList<>();
            if (anyFlowControl(sql)) {
                // no look-ahead under flow control: a row claimed ahead would count in this second's rate and be sent
                // in the next one, and hold a parallelism slot while it waits for its instant
                claims.addAll(claimFlowControlled(sql, owner, lease, limit, Duration.ZERO, free, fairness.otherwise()));
                for (Claim c : claims) free.merge(ClaimSql.destination(c.schedule()), -1, (a, b) -> Math.max(0, a + b));
                for (Claim c : claims)
                    free.putIfAbsent(ClaimSql.destination(c.schedule()), Math.max(0, fairness.otherwise() - 1));
            }
            int left = limit - claims.size();
            if (left > 0) {
                Object[] args =
                        clock.args(ClaimSql.pickArgs(owner, lease, free, lookahead, left, fairness.otherwise()));
                if (statements.joinedClaim) {
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

    /**
     * Claims flow-controlled deliveries under the flow-control lock, at one instant read once (so the rate's second
     * and the claims agree), and counts them into this second's usage of their keys (an application's too).
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
        long now = clock.nowMillis(sql);
        List<Claim> claims = claimedWithSchedules(
                sql,
                owner,
                statements.flowClaimSql,
                QueueClock.withClock(now, ClaimSql.pickArgs(owner, lease, free, lookahead, limit, otherwise)));
        Map<String, Integer> perKey = FlowUsage.keysOf(sql, claims);
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
     * Claims with {@code statement} ({@link ClaimSql#claimSql} or {@link ClaimSql#passOverClaimSql}), which returns the rows joined to
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
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids)) {
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

    /**
     * Claimed rows that cannot be decoded (a definition written by a newer version, or damaged by hand) become
     * {@code dead} at once with a failed attempt saying why, in the claim's own transaction: thrown instead, the claim
     * would roll back (or, claimed in autocommit, be released) and the same rows would be claimed and fail again on
     * every claim, holding up every other delivery. A replay once the row is fixed sends it again.
     */
    private Void bury(Sql sql, String owner, List<Undecodable> buried) {
        if (buried.isEmpty()) return null;
        long now = clock.nowMillis(sql);
        sql.batch(
                "INSERT INTO attempts (" + Rows.ATTEMPT
                        + ") VALUES (?, ?, ?, ?, 0, NULL, ?, NULL) ON CONFLICT DO NOTHING",
                buried.stream()
                        .map(b -> new Object[] {
                            attemptIds.next("att"), b.deliveryId(), b.attempt(), now, "not sent: " + b.error()
                        })
                        .toList());
        sql.batch(
                "UPDATE deliveries SET status = 'dead', next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, "
                        + "last_error = ?, updated_at = ? WHERE id = ? AND status = 'delivering' AND lease_owner = ?",
                buried.stream()
                        .map(b -> new Object[] {"not sent: " + b.error(), now, b.deliveryId(), owner})
                        .toList());
        FinishCounts.add(sql, buried.stream().map(Undecodable::deliveryId).toList(), now);
        // a one-shot whose delivery is dead now has nothing left to attempt (docs/api.md, "Statuses"), as after any
        // outcome
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
}
