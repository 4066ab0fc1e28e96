package dev.idem.store.internal;

import static dev.idem.store.internal.QueueClock.NOW;

import dev.idem.core.Schedule;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The text of the queue's claim statements and their parameters, built once per store from its dialect: which due
 * rows a claim picks (destinations interleaved within their free slots, flow control's limits), how it leases them,
 * and how they come back with their schedules.
 */
final class ClaimSql {
    private final Dialect dialect;
    private final QueueClock clock;
    /** Whether {@link #claimSql} leases the rows and returns them with their schedules in one statement. */
    final boolean joinedClaim;

    final String claimSql;
    /** {@link #claimSql} whose first window passes over full destinations' rows: {@link Claims#claimDuePassingOver}. */
    final String passOverClaimSql;

    final String flowClaimSql;

    ClaimSql(Dialect dialect, QueueClock clock) {
        this.dialect = dialect;
        this.clock = clock;
        this.joinedClaim = dialect.returningReadsJoinedTables();
        this.claimSql = joinedClaim ? claimJoinedSql(false) : claimSerialisedSql(false);
        this.passOverClaimSql = joinedClaim ? claimJoinedSql(true) : claimSerialisedSql(true);
        // flow-controlled rows are looked for among all due rows anyway (by design), so past full destinations too
        this.flowClaimSql = "WITH clk AS (SELECT CAST(? AS BIGINT) AS ms) " + leaseSql(pickSql(true, true));
    }

    /**
     * The rows the due index holds (V1, V47), as {@code q}: pending and not held. Held rows (those of a paused schedule,
     * marked while it is paused) are out of the index, so a paused backlog costs no claim, look-ahead or stats read a
     * walk past it. Every reader of the due indexes states this word for word: SQLite uses a partial index only then.
     * The schedule's status is still checked after it: a row written pending while its schedule was already paused is
     * not marked.
     */
    static final String PENDING = "q.status IN ('scheduled', 'retrying') AND q.held IS NULL";

    /** A destination key as the claim groups by: a schedule written without one counts as its own destination. */
    static final String DESTINATION = "COALESCE(qs.destination, qs.id)";

    /** The key {@link #DESTINATION} gives a claimed delivery's schedule. */
    static String destination(Schedule s) {
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
    static String json(Map<String, Integer> free) {
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
     * and kept within the key's parallelism (live claims) and rate (claims this second), then a message's delivery
     * within its application's rate too.
     */
    private String pickSql(boolean flowControlled, boolean passOverFull) {
        String lock = dialect.forUpdateOf("q") + dialect.skipLockedClause();
        String flowColumns = flowControlled
                ? ", qs.flow_key, qs.flow_parallelism AS par, qs.flow_rate AS rate, q.endpoint_id AS ep"
                : "";
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
        String due = PENDING + " AND q.next_attempt_at <= " + NOW + " + ? AND (q.status = 'scheduled' OR "
                + "q.next_attempt_at <= " + NOW + ")";
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
                .append(" FROM (SELECT q.id, q.schedule_id, q.next_attempt_at")
                .append(flowControlled ? ", q.endpoint_id" : "")
                .append(" FROM deliveries q WHERE ")
                .append(due)
                .append(" ORDER BY q.next_attempt_at DESC LIMIT ?) q")
                .append(scheduleOf("qs", "q"))
                .append(" WHERE ")
                .append(DESTINATION)
                .append(" NOT IN (SELECT dest FROM earliest)")
                .append(filters)
                .append(notFull)
                .append(")")
                .append(
                        flowControlled
                                ? ", cand AS (" + LIMITS_OF_CANDIDATES + ")"
                                : ", cand AS (SELECT * FROM earliest UNION SELECT * FROM latest)")
                .append(
                        ", ranked AS (SELECT cand.*, ROW_NUMBER() OVER (PARTITION BY cand.dest ORDER BY cand.due, cand.id) AS rn")
                .append(
                        flowControlled
                                ? ", ROW_NUMBER() OVER (PARTITION BY cand.flow_key ORDER BY cand.due, cand.id) AS rk"
                                : "")
                .append(" FROM cand)")
                .append(
                        flowControlled
                                ? ", passed AS (SELECT ranked.*"
                                : ", picked AS (SELECT ranked.id, ranked.rn, ranked.due")
                .append(" FROM ranked LEFT JOIN caps ON caps.dest = ranked.dest");
        if (flowControlled) {
            q.append(
                            " LEFT JOIN live ON live.flow_key = ranked.flow_key LEFT JOIN used ON used.flow_key = ranked.flow_key")
                    .append(" WHERE (ranked.par IS NULL OR ranked.rk <= ranked.par - COALESCE(live.n, 0))")
                    .append(" AND (ranked.rate IS NULL OR ranked.rk <= ranked.rate - COALESCE(used.n, 0)) AND");
        } else {
            q.append(" WHERE");
        }
        q.append(" ranked.rn <= COALESCE(caps.free, ?))");
        if (flowControlled) {
            // an application's limit among the rows its endpoints' own limits let through, shared out across its
            // endpoints in turn (each endpoint's first row, then its second: rn is the rank within the endpoint)
            q.append(", picked AS (SELECT a.id, a.rn, a.due FROM (SELECT passed.*, ROW_NUMBER() OVER ")
                    .append(
                            "(PARTITION BY passed.app_key ORDER BY passed.rn, passed.due, passed.id) AS ra FROM passed) a")
                    .append(" LEFT JOIN used au ON au.flow_key = a.app_key")
                    .append(" WHERE a.app_rate IS NULL OR a.ra <= a.app_rate - COALESCE(au.n, 0))");
        }
        // the picked rows in their order, each locked as it is read, until the limit is reached: a row another claim
        // holds, or one that is no longer due, is passed over for the next one
        return q.append(" SELECT p.id FROM (SELECT id, rn, due FROM picked ORDER BY rn, due) p")
                .append(dialect.oneRowByKey("deliveries", "q", "q.id = p.id", true))
                .append(" WHERE q.status IN ('scheduled', 'retrying') ORDER BY p.rn, p.due LIMIT ?")
                .toString();
    }

    /**
     * The flow key of an application's limit, from its endpoint's row as {@code fe}: null for an endpoint of no
     * application. Scoped to the tenant as {@link dev.idem.core.FlowControl#scopedKey} scopes keys, under Idem's own
     * prefix, so it meets no schedule's key.
     */
    static final String APPLICATION_KEY = "fe.project_id || '/' || fe.mode || '/"
            + dev.idem.core.FlowControl.RESERVED_PREFIX + "application:' || fe.application_id";

    /**
     * The flow-controlled candidates with their limits. A message's delivery (one with an endpoint) takes its
     * endpoint's {@code rate_limit} and its application's as they are now, looked up by key once per candidate, so a
     * changed limit applies to the deliveries already waiting; any other row takes its schedule's flow control.
     */
    private static final String LIMITS_OF_CANDIDATES = "SELECT u.id, u.dest, u.due, u.flow_key, u.par, "
            + "CASE WHEN u.ep IS NULL THEN u.rate ELSE fe.rate_limit END AS rate, " + APPLICATION_KEY + " AS app_key, "
            + "fa.rate_limit AS app_rate FROM (SELECT * FROM earliest UNION SELECT * FROM latest) u "
            + "LEFT JOIN endpoints fe ON fe.id = u.ep LEFT JOIN applications fa ON fa.id = fe.application_id";

    /** The schedule of each row of {@code rows}, as {@code alias}: one lookup by key per row, never a scan of them all. */
    String scheduleOf(String alias, String rows) {
        return dialect.oneRowByKey("schedules", alias, alias + ".id = " + rows + ".schedule_id", false);
    }

    /** The parameters of a claim statement after its clock's: the lease's, then {@link #pickSql}'s. */
    static Object[] pickArgs(
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

    /**
     * A claim statement as {@link Claims#claimDue} runs it, with its parameters (the clock's from {@code now}), for tests of
     * its plan: the flow-controlled claim's, or the other one's.
     */
    JdbcDeliveryQueue.ClaimStatement claimStatement(
            boolean flowControlled,
            long now,
            String owner,
            Duration lease,
            Map<String, Integer> free,
            Duration lookahead,
            int limit,
            int otherwise) {
        Object[] pick = pickArgs(owner, lease, free, lookahead, limit, otherwise);
        if (flowControlled) return new JdbcDeliveryQueue.ClaimStatement(flowClaimSql, QueueClock.withClock(now, pick));
        return new JdbcDeliveryQueue.ClaimStatement(
                claimSql, clock.databaseClock() ? pick : QueueClock.withClock(now, pick));
    }

    /** One statement: pick the rows, lease them, return them with their schedules. */
    private String claimJoinedSql(boolean passOverFull) {
        String returning =
                Arrays.stream(Rows.DELIVERY_READ.split(", ")).map(c -> "d." + c).collect(Collectors.joining(", "));
        return clock.cte() + "UPDATE deliveries d SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW
                + " + ?, "
                + "attempt_count = d.attempt_count + 1, updated_at = " + NOW + " FROM schedules s "
                + "WHERE s.id = d.schedule_id AND " + dialect.inSubquery("d.id", pickSql(false, passOverFull)) + " "
                + "RETURNING " + returning + ", " + Rows.scheduleColumnsAs("s", "s_") + ", s."
                + Rows.DEFINITION_REVISION + " AS s_" + Rows.DEFINITION_REVISION;
    }

    /** Where RETURNING cannot read a joined table (SQLite): the schedules are read next, in the same transaction. */
    private String claimSerialisedSql(boolean passOverFull) {
        return clock.cte() + leaseSql(pickSql(false, passOverFull));
    }

    private String leaseSql(String pick) {
        return "UPDATE deliveries SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW + " + ?, "
                + "attempt_count = attempt_count + 1, updated_at = " + NOW + " WHERE " + dialect.inSubquery("id", pick)
                + " "
                + "RETURNING " + Rows.DELIVERY_READ;
    }
}
