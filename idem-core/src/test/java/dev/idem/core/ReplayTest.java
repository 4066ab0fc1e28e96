package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.fanout.Endpoint;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplayTest {
    private static final Instant CREATED = Instant.parse("2026-03-10T17:00:00Z");
    private static final Instant NOW = CREATED.plusSeconds(3600);

    private static Schedule schedule(ScheduleStatus status, String pausedReason) {
        ScheduleDefinition def = ScheduleDefinition.builder("https://example.com/hook", new Timing.Once(CREATED))
                .build();
        return new Schedule(
                "sch_1", new Tenant("prj_test", Mode.TEST), status, def, null, 2, pausedReason, 1, CREATED, CREATED);
    }

    @Test
    void aHeldReplayPausesAnActiveScheduleForItsEndpoint() {
        Schedule active = schedule(ScheduleStatus.ACTIVE, null);

        Schedule settled = Replay.settled(active, true, NOW).orElseThrow();

        assertThat(settled.status()).isEqualTo(ScheduleStatus.PAUSED);
        assertThat(settled.pausedReason()).isEqualTo(Endpoint.PAUSED_REASON);
        assertThat(settled.updatedAt()).isEqualTo(NOW);
        // only the status changes: the rest of the schedule is stored as it was
        assertThat(settled.withStatus(ScheduleStatus.ACTIVE, null, CREATED)).isEqualTo(active);
    }

    @Test
    void aHeldReplayPausesACompletedScheduleForItsEndpointRatherThanActivatingIt() {
        Schedule settled = Replay.settled(schedule(ScheduleStatus.COMPLETED, null), true, NOW)
                .orElseThrow();

        assertThat(settled.status()).isEqualTo(ScheduleStatus.PAUSED);
        assertThat(settled.pausedReason()).isEqualTo(Endpoint.PAUSED_REASON);
    }

    @Test
    void aHeldReplayLeavesAnAlreadyPausedScheduleAndItsReasonAsTheyAre() {
        assertThat(Replay.settled(schedule(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER), true, NOW))
                .isEmpty();
        assertThat(Replay.settled(schedule(ScheduleStatus.PAUSED, Endpoint.PAUSED_REASON), true, NOW))
                .isEmpty();
    }

    @Test
    void aReplayOfACompletedScheduleMakesItActiveAgain() {
        Schedule completed = schedule(ScheduleStatus.COMPLETED, null);

        Schedule settled = Replay.settled(completed, false, NOW).orElseThrow();

        assertThat(settled.status()).isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(settled.pausedReason()).isNull();
        assertThat(settled.updatedAt()).isEqualTo(NOW);
        assertThat(settled.withStatus(ScheduleStatus.COMPLETED, null, CREATED)).isEqualTo(completed);
    }

    @Test
    void aReplayNotHeldLeavesAnActivePausedOrDeletedScheduleAsItIs() {
        assertThat(Replay.settled(schedule(ScheduleStatus.ACTIVE, null), false, NOW))
                .isEmpty();
        assertThat(Replay.settled(schedule(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_FAILURES), false, NOW))
                .isEmpty();
        assertThat(Replay.settled(schedule(ScheduleStatus.PAUSED, Endpoint.PAUSED_REASON), false, NOW))
                .isEmpty();
        assertThat(Replay.settled(schedule(ScheduleStatus.DELETED, null), false, NOW))
                .isEmpty();
    }
}
