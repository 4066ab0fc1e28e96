package dev.idem.store.internal;

import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue.Claim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What becomes of deliveries a dispatcher claimed ahead of their instant, asked just before it starts them
 * ({@link dev.idem.core.store.DeliveryQueue#confirmHeld}). The API's pause, delete and PATCH see such a delivery as
 * being attempted (it is {@code delivering}) and leave it alone; this check is where they still reach it.
 */
final class HeldCheck {
    private HeldCheck() {}

    /** The claims sorted by what to do with them. */
    record Verdicts(List<Claim> start, List<Claim> giveBack, List<Claim> cancel) {}

    /**
     * Where each delivery and its schedule stand now: the delivery's claim columns, the schedule's status and its
     * definition's revision. Not the definition: fetching its text and decoding it again for every held row (a miss of
     * the codec's cache once more definitions are in flight than it keeps) cost up to several times the rest of the
     * check, and its revision moves exactly when a write changes it ({@link JdbcSchedules#update}).
     * Not {@code updated_at} either: completions and the materialiser move it, and every recurring occurrence would go
     * back.
     */
    private record Now(String status, String owner, int attemptCount, String scheduleStatus, long revision) {}

    static Verdicts read(Sql sql, String owner, List<Claim> claims) {
        Map<String, Now> now = new HashMap<>();
        List<String> ids = claims.stream().map(c -> c.delivery().id()).toList();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids))
            sql.query(
                            "SELECT d.id, d.status, d.lease_owner, d.attempt_count, s.status AS s_status, s."
                                    + Rows.DEFINITION_REVISION
                                    + " FROM deliveries d JOIN schedules s ON s.id = d.schedule_id WHERE d.id IN ("
                                    + Sql.marks(chunk.size()) + ")",
                            rs -> Map.entry(
                                    rs.getString("id"),
                                    new Now(
                                            rs.getString("status"),
                                            rs.getString("lease_owner"),
                                            rs.getInt("attempt_count"),
                                            rs.getString("s_status"),
                                            rs.getLong(Rows.DEFINITION_REVISION))),
                            chunk.toArray())
                    .forEach(e -> now.put(e.getKey(), e.getValue()));
        List<Claim> start = new ArrayList<>();
        List<Claim> giveBack = new ArrayList<>();
        List<Claim> cancel = new ArrayList<>();
        for (Claim c : claims) {
            Now n = now.get(c.delivery().id());
            if (n == null
                    || !"delivering".equals(n.status())
                    || !owner.equals(n.owner())
                    || n.attemptCount() != c.delivery().attemptCount()) continue; // not this claim any more
            ScheduleStatus status = ScheduleStatus.parse(n.scheduleStatus());
            if (status == ScheduleStatus.DELETED) cancel.add(c);
            else if (status == ScheduleStatus.PAUSED) giveBack.add(c);
            else if (n.revision() != c.definitionRevision()) giveBack.add(c);
            else start.add(c);
        }
        return new Verdicts(start, giveBack, cancel);
    }

    /** What a cancelled held claim becomes (the one parameter is now): final, unattempted, held by no one. */
    private static final String CANCELLED = "status = 'cancelled', next_attempt_at = NULL, "
            + "attempt_count = attempt_count - 1, lease_owner = NULL, lease_expires_at = NULL, updated_at = ?";

    /**
     * Settles what {@link #read} did not start, in the caller's transaction: claims to give back return to the queue as
     * {@link JdbcDeliveryQueue#unclaim} returns them; claims of deleted schedules are cancelled unattempted (their
     * attempt count one less), as the delete cancelled the schedule's other pending deliveries. Each only while
     * {@code owner} still holds that very claim. Returns how many it settled.
     */
    static int settle(Sql sql, String owner, Verdicts verdicts, long nowMillis) {
        int settled = 0;
        if (!verdicts.giveBack().isEmpty())
            settled += JdbcDeliveryQueue.updateClaims(
                    sql, JdbcDeliveryQueue.UNCLAIMED, owner, verdicts.giveBack(), nowMillis);
        if (!verdicts.cancel().isEmpty())
            settled += JdbcDeliveryQueue.updateClaims(sql, CANCELLED, owner, verdicts.cancel(), nowMillis);
        return settled;
    }
}
