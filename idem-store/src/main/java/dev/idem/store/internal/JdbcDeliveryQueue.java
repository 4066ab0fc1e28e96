package dev.idem.store.internal;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.StoreException;
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
    /** Claimable rows due by now plus a bound look-ahead in milliseconds. */
    private static final String CLAIMABLE = "q.status IN ('scheduled', 'retrying') AND q.next_attempt_at <= " + NOW
            + " + ? AND qs.status NOT IN ('paused', 'deleted')";
    private static final String FINISHED = "status IN ('succeeded', 'dead', 'cancelled')";

    private final JdbcStore store;
    private final Clock clock;
    private final boolean databaseClock;
    private final Dialect dialect;
    private final Completion completion;
    private final String claimSql;
    private final String reapSql;
    private final String releaseSql;

    JdbcDeliveryQueue(JdbcStore store, Clock clock, boolean databaseClock) {
        this.store = store;
        this.clock = clock;
        this.databaseClock = databaseClock;
        this.dialect = store.dialectImpl();
        this.completion = dialect.skipLocked() ? new PgCompletion() : new BatchCompletion();
        this.claimSql = dialect.skipLocked() ? claimSkipLockedSql() : claimSerialisedSql();
        String toQueue = clock() + "UPDATE deliveries SET status = 'retrying', next_attempt_at = " + NOW
                + ", lease_owner = NULL, lease_expires_at = NULL, updated_at = " + NOW + " WHERE status = 'delivering' AND ";
        this.reapSql = toQueue + "lease_expires_at < " + NOW;
        this.releaseSql = toQueue + "lease_owner = ?";
    }

    /** {@code WITH clk AS (...)}: binds one parameter (the injected clock's now) unless the database clock is used. */
    private String clock() {
        return "WITH clk AS (SELECT " + (databaseClock ? dialect.databaseNowMillis() : "CAST(? AS BIGINT)") + " AS ms) ";
    }

    /** The arguments of a statement that starts with {@link #clock()}. */
    private Object[] args(Object... rest) {
        if (databaseClock) return rest;
        Object[] out = new Object[rest.length + 1];
        out[0] = clock.millis();
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }

    @Override
    public List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead) {
        if (limit <= 0) return List.of();
        java.util.Objects.requireNonNull(owner, "owner");
        if (lookahead.isNegative()) throw new IllegalArgumentException("lookahead must not be negative, got " + lookahead);
        Object[] args = args(owner, lease.toMillis(), lookahead.toMillis(), limit);
        return retrying(() -> store.transact(sql -> dialect.skipLocked() ? claimSkipLocked(sql, args) : claimSerialised(sql, args)));
    }

    /** One statement: lock the due rows nobody else holds, lease them, return them with their schedules. */
    private String claimSkipLockedSql() {
        String returning = Arrays.stream(Rows.DELIVERY_READ.split(", ")).map(c -> "d." + c).collect(Collectors.joining(", "));
        return clock() + "UPDATE deliveries d SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW + " + ?, "
                + "attempt_count = d.attempt_count + 1, updated_at = " + NOW + " FROM schedules s "
                + "WHERE s.id = d.schedule_id AND " + dialect.inSubquery("d.id", "SELECT q.id FROM deliveries q JOIN schedules qs ON "
                + "qs.id = q.schedule_id WHERE " + CLAIMABLE + " ORDER BY q.next_attempt_at LIMIT ? FOR UPDATE OF q SKIP LOCKED") + " "
                + "RETURNING " + returning + ", " + Rows.scheduleColumnsAs("s", "s_");
    }

    /** SQLite's RETURNING cannot read a joined table: the write transaction already excludes every other claimer. */
    private String claimSerialisedSql() {
        return clock() + "UPDATE deliveries SET status = 'delivering', lease_owner = ?, lease_expires_at = " + NOW + " + ?, "
                + "attempt_count = attempt_count + 1, updated_at = " + NOW + " WHERE " + dialect.inSubquery("id", "SELECT q.id FROM deliveries q "
                + "JOIN schedules qs ON qs.id = q.schedule_id WHERE " + CLAIMABLE + " ORDER BY q.next_attempt_at LIMIT ?") + " "
                + "RETURNING " + Rows.DELIVERY_READ;
    }

    private List<Claim> claimSkipLocked(Sql sql, Object[] args) {
        // Deliveries of one schedule share its row: decode its definition once per batch.
        Map<String, Schedule> decoded = new HashMap<>();
        return sql.query(claimSql, rs -> {
            Schedule s = decoded.get(rs.getString("s_id"));
            if (s == null) {
                s = Rows.schedule(rs, "s_");
                decoded.put(s.id(), s);
            }
            return new Claim(Rows.delivery(rs), s);
        }, args);
    }

    private List<Claim> claimSerialised(Sql sql, Object[] args) {
        List<Delivery> claimed = sql.query(claimSql, Rows::delivery, args);
        Map<String, Schedule> schedules = new HashMap<>();
        List<String> ids = claimed.stream().map(Delivery::scheduleId).distinct().toList();
        for (List<String> chunk : chunks(ids)) {
            for (Schedule s : sql.query("SELECT " + Rows.SCHEDULE + " FROM schedules WHERE id IN (" + Sql.marks(chunk.size()) + ")",
                    Rows::schedule, chunk.toArray())) schedules.put(s.id(), s);
        }
        return claimed.stream().map(d -> new Claim(d, schedules.get(d.scheduleId()))).toList();
    }

    @Override
    public Completed complete(String owner, List<Outcome> outcomes) {
        if (outcomes.isEmpty()) return Completed.NONE;
        java.util.Objects.requireNonNull(owner, "owner");
        return retrying(() -> store.transact(sql -> {
            long now = nowMillis(sql);
            Completed completed = completion.apply(sql, owner, outcomes, now);
            // a schedule whose last delivery just became final is completed (SPEC section 2), in the same transaction
            java.util.Set<String> appliedIds = new java.util.HashSet<>(completed.applied());
            Settlement.afterOutcomes(sql, dialect, outcomes.stream().filter(o -> o.newStatus() != dev.idem.core.DeliveryStatus.RETRYING)
                    .map(Outcome::deliveryId).filter(appliedIds::contains).distinct().toList(), now);
            return completed;
        }));
    }

    @Override
    public int reapExpired() {
        return retrying(() -> store.transact(sql -> sql.update(reapSql, args())));
    }

    @Override
    public int release(String owner) {
        return retrying(() -> store.transact(sql -> releaseHeldBy(sql, owner)));
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
        return retrying(() -> store.transact(sql -> {
            if (dialect.skipLocked()) return sql.update(releaseSql + " AND NOT (id = ANY(?::text[]))", args(owner, sql.array("text", kept)));
            // a node keeps at most a few hundred claims in flight, far below SQLite's 32,766 parameters
            Object[] ownerAndKept = new Object[kept.length + 1];
            ownerAndKept[0] = owner;
            System.arraycopy(kept, 0, ownerAndKept, 1, kept.length);
            return sql.update(releaseSql + " AND id NOT IN (" + Sql.marks(kept.length) + ")", args(ownerAndKept));
        }));
    }

    @Override
    public Optional<Instant> nextDueAt() {
        return store.autocommit(sql -> sql.one("SELECT q.next_attempt_at FROM deliveries q JOIN schedules qs ON qs.id = q.schedule_id "
                + "WHERE q.status IN ('scheduled', 'retrying') AND qs.status NOT IN ('paused', 'deleted') "
                + "ORDER BY q.next_attempt_at LIMIT 1", rs -> Sql.instant(rs, "next_attempt_at")));
    }

    @Override
    public Instant now() {
        if (!databaseClock) return Instant.ofEpochMilli(clock.millis());
        return Instant.ofEpochMilli(store.autocommit(this::nowMillis));
    }

    /** The store's now inside {@code sql}'s transaction (the node registry uses the same clock as claims). */
    long nowMillis(Sql sql) {
        if (!databaseClock) return clock.millis();
        return sql.one("SELECT " + dialect.databaseNowMillis(), rs -> rs.getLong(1)).orElseThrow();
    }

    @Override
    public int pruneFinished(Instant before, int limit) {
        if (limit <= 0) return 0;
        return retrying(() -> store.transact(sql -> {
            List<String> ids = sql.query("DELETE FROM deliveries WHERE " + dialect.inSubquery("id", "SELECT id FROM deliveries WHERE "
                    + FINISHED + " AND updated_at < ? ORDER BY updated_at LIMIT ?") + " AND " + FINISHED + " RETURNING id",
                    rs -> rs.getString(1), before, limit);
            for (List<String> chunk : chunks(ids))
                sql.update("DELETE FROM attempts WHERE delivery_id IN (" + Sql.marks(chunk.size()) + ")", chunk.toArray());
            return ids.size();
        }));
    }

    @Override
    public long depth() {
        return store.autocommit(sql -> sql.one("SELECT COUNT(*) FROM deliveries WHERE " + JdbcDeliveries.PENDING, rs -> rs.getLong(1))
                .orElse(0L));
    }

    @Override
    public void notifyDue() {
        store.signal().now();
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
