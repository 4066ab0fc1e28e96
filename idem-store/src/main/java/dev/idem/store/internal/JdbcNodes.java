package dev.idem.store.internal;

import dev.idem.core.store.NodeRegistry;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The node liveness records on JDBC. Every call is one short transaction on the store's liveness connection (see
 * {@link JdbcStore#livenessTransactions}); "now" is the queue's now (the database clock when it is on). Each change of a
 * record is a compare-and-set on what was read (epoch, status, renewal time), so a node renewing at the same moment
 * as another declares it dead either renews first (and is not declared dead) or finds itself dead; the row lock of
 * PostgreSQL and SQLite's single writer serialise the two.
 */
final class JdbcNodes implements NodeRegistry {
    private static final String COLUMNS =
            "node_id, epoch, status, started_at, renewed_at, ended_at, taken_over_by, host, machine, pid, "
                    + "process_start";
    /** At most this many tries when another process inserts or changes the record between our read and write. */
    private static final int MAX_RACES = 5;

    private final Transactions liveness;
    private final JdbcDeliveryQueue queue;

    JdbcNodes(Transactions liveness, JdbcDeliveryQueue queue) {
        this.liveness = liveness;
        this.queue = queue;
    }

    @Override
    public Join join(String nodeId, NodeProcess process, BiPredicate<Node, Instant> holderIsDead) {
        java.util.Objects.requireNonNull(nodeId, "nodeId");
        java.util.Objects.requireNonNull(process, "process");
        for (int race = 1; ; race++) {
            Optional<Join> done = liveness.write(sql -> tryJoin(sql, nodeId, process, holderIsDead));
            if (done.isPresent()) return done.get();
            if (race >= MAX_RACES)
                throw new dev.idem.core.store.StoreException(
                        "node id " + nodeId + " kept changing while this node joined; try again", null, true);
        }
    }

    /** Empty when the record changed between our read and our write (another process joined): the caller tries again. */
    private Optional<Join> tryJoin(Sql sql, String nodeId, NodeProcess p, BiPredicate<Node, Instant> holderIsDead) {
        long now = queue.nowMillis(sql);
        Optional<Node> current = read(sql, nodeId);
        if (current.isEmpty()) {
            int inserted = sql.update(
                    "INSERT INTO nodes (" + COLUMNS + ") VALUES (?, 1, 'live', ?, ?, NULL, NULL, ?, ?, ?, ?) "
                            + "ON CONFLICT (node_id) DO NOTHING",
                    nodeId,
                    now,
                    now,
                    p.host(),
                    p.machine(),
                    p.pid(),
                    p.processStart());
            return inserted == 1
                    ? Optional.of(new Joined(read(sql, nodeId).orElseThrow(), Optional.empty(), 0))
                    : Optional.empty();
        }
        Node old = current.get();
        Instant nowAt = Instant.ofEpochMilli(now);
        boolean live = old.status() == Status.LIVE;
        if (live && !holderIsDead.test(old, nowAt)) return Optional.of(new Occupied(old, nowAt));
        int changed = sql.update(
                "UPDATE nodes SET epoch = epoch + 1, status = 'live', started_at = ?, renewed_at = ?, ended_at = NULL, "
                        + "taken_over_by = NULL, host = ?, machine = ?, pid = ?, process_start = ? "
                        + "WHERE node_id = ? AND epoch = ? AND status = ? AND renewed_at = ?",
                now,
                now,
                p.host(),
                p.machine(),
                p.pid(),
                p.processStart(),
                nodeId,
                old.epoch(),
                old.status().wireName(),
                old.renewedAt());
        if (changed == 0) return Optional.empty();
        // a live holder declared dead here: its claims; a stopped or dead one normally holds none, but a release that
        // failed
        // at its shutdown, or a claim it committed after it was declared dead, would otherwise wait for its lease
        int claims = queue.releaseHeldBy(sql, old.owner());
        return Optional.of(new Joined(read(sql, nodeId).orElseThrow(), Optional.of(old), claims));
    }

    @Override
    public boolean renew(String nodeId, long epoch) {
        return liveness.write(sql -> sql.update(
                        "UPDATE nodes SET renewed_at = ? WHERE node_id = ? AND epoch = ? AND status = 'live'",
                        queue.nowMillis(sql),
                        nodeId,
                        epoch)
                == 1);
    }

    @Override
    public Optional<Scan> takeOver(String nodeId, long epoch, BiPredicate<Node, Instant> isDead) {
        return liveness.write(sql -> {
            long now = queue.nowMillis(sql);
            Instant nowAt = Instant.ofEpochMilli(now);
            Optional<Node> me = read(sql, nodeId);
            if (me.isEmpty() || me.get().epoch() != epoch || me.get().status() != Status.LIVE) return Optional.empty();
            List<Takeover> takeovers = new ArrayList<>();
            List<Node> stillLive = new ArrayList<>();
            for (Node other : sql.query(
                    "SELECT " + COLUMNS + " FROM nodes WHERE status = 'live' AND node_id <> ? ORDER BY node_id",
                    JdbcNodes::node,
                    nodeId)) {
                if (!isDead.test(other, nowAt)) {
                    stillLive.add(other);
                    continue;
                }
                // renewed since we read it: alive after all
                if (sql.update(
                                "UPDATE nodes SET status = 'dead', ended_at = ?, taken_over_by = ? "
                                        + "WHERE node_id = ? AND epoch = ? AND status = 'live' AND renewed_at = ?",
                                now,
                                nodeId,
                                other.nodeId(),
                                other.epoch(),
                                other.renewedAt())
                        == 0) continue;
                takeovers.add(new Takeover(other, queue.releaseHeldBy(sql, other.owner()), other.silentFor(nowAt)));
            }
            return Optional.of(new Scan(nowAt, List.copyOf(takeovers), List.copyOf(stillLive)));
        });
    }

    @Override
    public void leave(String nodeId, long epoch) {
        liveness.write(sql -> {
            long now = queue.nowMillis(sql);
            return sql.update(
                    "UPDATE nodes SET status = 'stopped', renewed_at = ?, ended_at = ? WHERE node_id = ? AND epoch = ? "
                            + "AND status = 'live'",
                    now,
                    now,
                    nodeId,
                    epoch);
        });
    }

    @Override
    public Optional<Node> find(String nodeId) {
        return liveness.write(sql -> read(sql, nodeId));
    }

    @Override
    public List<Node> list() {
        return liveness.write(sql -> sql.query("SELECT " + COLUMNS + " FROM nodes ORDER BY node_id", JdbcNodes::node));
    }

    @Override
    public int pruneEnded(Instant before) {
        return liveness.write(sql -> sql.update("DELETE FROM nodes WHERE status <> 'live' AND ended_at < ?", before));
    }

    private static Optional<Node> read(Sql sql, String nodeId) {
        return sql.one("SELECT " + COLUMNS + " FROM nodes WHERE node_id = ?", JdbcNodes::node, nodeId);
    }

    private static Node node(ResultSet rs) throws SQLException {
        return new Node(
                rs.getString("node_id"),
                rs.getLong("epoch"),
                Status.parse(rs.getString("status")),
                Sql.instant(rs, "started_at"),
                Sql.instant(rs, "renewed_at"),
                Sql.instant(rs, "ended_at"),
                rs.getString("taken_over_by"),
                new NodeProcess(
                        rs.getString("host"),
                        rs.getString("machine"),
                        rs.getLong("pid"),
                        Sql.instant(rs, "process_start")));
    }
}
