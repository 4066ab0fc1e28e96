package dev.idem.store.internal;

import dev.idem.core.Schedule;
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

    /** Where each delivery and its schedule stand now. */
    private record Now(String status, String owner, int attemptCount, Schedule schedule) {}

    static Verdicts read(Sql sql, String owner, List<Claim> claims) {
        Map<String, Now> now = new HashMap<>();
        List<String> ids = claims.stream().map(c -> c.delivery().id()).toList();
        for (List<String> chunk : JdbcDeliveryQueue.chunks(ids))
            sql.query(
                            "SELECT d.id, d.status, d.lease_owner, d.attempt_count, "
                                    + Rows.scheduleColumnsAs("s", "s_")
                                    + " FROM deliveries d JOIN schedules s ON s.id = d.schedule_id WHERE d.id IN ("
                                    + Sql.marks(chunk.size()) + ")",
                            rs -> Map.entry(
                                    rs.getString("id"),
                                    new Now(
                                            rs.getString("status"),
                                            rs.getString("lease_owner"),
                                            rs.getInt("attempt_count"),
                                            Rows.schedule(rs, "s_"))),
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
            ScheduleStatus status = n.schedule().status();
            if (status == ScheduleStatus.DELETED) cancel.add(c);
            else if (status == ScheduleStatus.PAUSED) giveBack.add(c);
            else if (!n.schedule().definition().equals(c.schedule().definition())) giveBack.add(c);
            else start.add(c);
        }
        return new Verdicts(start, giveBack, cancel);
    }

    /**
     * Cancels claims of deleted schedules, unattempted (their attempt count one less), as the delete cancelled the
     * schedule's other pending deliveries; only while {@code owner} still holds that very claim.
     */
    static int cancel(Sql sql, String owner, List<Claim> claims, long nowMillis) {
        return JdbcDeliveryQueue.updateClaims(
                sql,
                "status = 'cancelled', next_attempt_at = NULL, attempt_count = attempt_count - 1, lease_owner = NULL, "
                        + "lease_expires_at = NULL, updated_at = ?",
                owner,
                claims,
                nowMillis);
    }
}
