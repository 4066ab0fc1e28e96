package dev.idem.core;

import dev.idem.core.fanout.Endpoint;
import java.time.Instant;
import java.util.Optional;

/**
 * What replaying a dead or succeeded delivery (alone or in bulk) does to its schedule. The delivery is due again, so
 * its schedule has to be one the engine sends from, or one that waits exactly as the delivery does:
 *
 * <ul>
 *   <li>while the delivery's endpoint is disabled ({@code held}), the schedule is paused with
 *       {@link Endpoint#PAUSED_REASON}, as the endpoint's other waiting deliveries' are, so enabling the endpoint lets
 *       it go; one already paused keeps its reason (a user's pause is not turned into the endpoint's);</li>
 *   <li>otherwise a completed schedule has something to attempt again, so it is active until the replay's outcome
 *       completes it again;</li>
 *   <li>otherwise (active, paused, deleted) the schedule is left as it is: whether a delivery of a paused or deleted
 *       schedule is replayed at all is the caller's decision, made before this one.</li>
 * </ul>
 */
public final class Replay {
    private Replay() {}

    /**
     * The schedule to store for a replayed delivery of {@code schedule}, or empty when it stays as it is.
     *
     * @param held whether the delivery's endpoint is disabled, so the delivery waits for it
     * @param now the replay's time, the changed schedule's {@code updatedAt}
     */
    public static Optional<Schedule> settled(Schedule schedule, boolean held, Instant now) {
        if (held)
            return schedule.status() == ScheduleStatus.PAUSED
                    ? Optional.empty()
                    : Optional.of(schedule.withStatus(ScheduleStatus.PAUSED, Endpoint.PAUSED_REASON, now));
        return schedule.status() == ScheduleStatus.COMPLETED
                ? Optional.of(schedule.withStatus(ScheduleStatus.ACTIVE, null, now))
                : Optional.empty();
    }
}
