package dev.idem.store.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Marks a schedule {@code completed} when nothing remains to attempt: it is active, its rule has ended (no cursor)
 * and none of its deliveries is pending. Every transaction that can end a schedule decides this after it holds
 * the schedule's row, in a statement that starts after the lock was granted (so under READ COMMITTED it sees every
 * transaction that held the row before), and the two ways a schedule ends take their locks so that the last one
 * to commit always sees the other's work:
 *
 * <ul>
 *   <li>outcomes ({@link #ofLockedSchedules}, or {@link #afterOutcomes} where nothing locked them yet): a delivery
 *       became final. The schedules whose rule had already ended are locked in id order, then completed unless a
 *       delivery is still pending. Two batches finishing the last two
 *       deliveries of one schedule serialise on its row: the second sees the first's outcome.</li>
 *   <li>a cursor that ends, a resume, a catch-up ({@link #ofHeldSchedules}): the caller already holds the schedule
 *       (it moved the cursor or locked the row), but a batch of outcomes that read the cursor before it ended did
 *       not lock the schedule. So the pending deliveries are locked instead: one being finished by such a batch is
 *       waited for and then read as it committed.</li>
 * </ul>
 *
 * Statements are the same on both databases: SQLite's single writer makes every transaction serial anyway and its
 * {@code FOR UPDATE} is empty.
 */
final class Settlement {
    private static final String PENDING = "status IN ('scheduled', 'retrying', 'delivering')";

    private Settlement() {}

    /**
     * After outcomes were applied to {@code deliveryIds} by a caller that has not locked their schedules (a claim that
     * buried undecodable rows): completes their schedules that have nothing left to attempt.
     */
    static Set<String> afterOutcomes(Sql sql, Dialect dialect, Collection<String> deliveryIds, long now) {
        Set<String> done = new HashSet<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(deliveryIds))) {
            // Two single-table lookups by primary key rather than one join: with statistics from before a burst,
            // PostgreSQL planned the join as a scan of every one-shot schedule probing deliveries for each
            // (auto_explain, 2026-11-26, a 30,000 burst: 29,683 schedules read for 370 rows, 200-260 ms a batch).
            List<String> schedules = sql.query(
                    "SELECT DISTINCT schedule_id FROM deliveries WHERE id IN (" + Sql.marks(chunk.size()) + ")",
                    rs -> rs.getString(1),
                    chunk.toArray());
            if (schedules.isEmpty()) continue;
            // a paused schedule is locked too: a resume deciding "active" must wait for this batch, or see its outcome
            List<String> ended = sql.query(
                    "SELECT id FROM schedules WHERE id IN (" + Sql.marks(schedules.size())
                            + ") AND next_fire_at IS NULL AND " + Completion.SETTLEABLE_SQL + " ORDER BY id"
                            + dialect.forUpdate(),
                    rs -> rs.getString(1),
                    schedules.toArray());
            done.addAll(ofLockedSchedules(sql, ended, now));
        }
        return done;
    }

    /**
     * After outcomes were applied: completes those of {@code ended} (schedules whose rule has ended, active or paused,
     * whose rows the caller locked after the outcomes' deliveries changed, in {@link Completion#lockSchedules}) that are
     * active and have no pending delivery. The statement starts after the locks were granted, so it sees every
     * transaction that held those rows before. {@link #afterOutcomes} ends here once it has found and locked them.
     */
    static Set<String> ofLockedSchedules(Sql sql, Collection<String> ended, long now) {
        Set<String> done = new HashSet<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(ended))) {
            Object[] args = new Object[chunk.size() + 1];
            args[0] = now;
            for (int i = 0; i < chunk.size(); i++) args[i + 1] = chunk.get(i);
            done.addAll(sql.query(
                    "UPDATE schedules SET status = 'completed', updated_at = ? WHERE id IN (" + Sql.marks(chunk.size())
                            + ") AND status = 'active' AND next_fire_at IS NULL AND NOT EXISTS (SELECT 1 FROM deliveries d"
                            + " WHERE d.schedule_id = schedules.id AND d." + PENDING + ") RETURNING id",
                    rs -> rs.getString(1),
                    args));
        }
        return done;
    }

    /** For schedules whose rows the caller holds: completes those with an ended rule and no pending delivery. */
    static Set<String> ofHeldSchedules(Sql sql, Dialect dialect, Collection<String> scheduleIds, Instant now) {
        Set<String> done = new HashSet<>();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(List.copyOf(new HashSet<>(scheduleIds)))) {
            Set<String> pending = new HashSet<>(sql.query(
                    "SELECT schedule_id FROM deliveries WHERE schedule_id IN (" + Sql.marks(chunk.size()) + ") AND "
                            + PENDING + dialect.forUpdate(),
                    rs -> rs.getString(1),
                    chunk.toArray()));
            List<Object> args = new ArrayList<>();
            args.add(now);
            for (String id : chunk) if (!pending.contains(id)) args.add(id);
            if (args.size() == 1) continue;
            done.addAll(sql.query(
                    "UPDATE schedules SET status = 'completed', updated_at = ? WHERE id IN ("
                            + Sql.marks(args.size() - 1)
                            + ") AND status = 'active' AND next_fire_at IS NULL RETURNING id",
                    rs -> rs.getString(1),
                    args.toArray()));
        }
        return done;
    }
}
