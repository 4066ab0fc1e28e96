package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

public interface ScheduleRepository {
    default void insert(Schedule schedule) {
        insertAll(List.of(schedule));
    }

    /** Inserts every schedule, in as few statements as the database allows (multi-row inserts). */
    void insertAll(List<Schedule> schedules);

    /** The schedule with this id in this tenant; empty for another tenant's (so ids leak nothing). */
    Optional<Schedule> find(Tenant tenant, String id);

    /**
     * Like {@link #find} but locks the row until the transaction ends ({@code SELECT … FOR UPDATE} on
     * PostgreSQL; SQLite's single writer serialises anyway).
     */
    Optional<Schedule> findForUpdate(Tenant tenant, String id);

    /**
     * The user's schedules, newest first (ids descend): those with an {@link dev.idem.core.Origin} (made by Idem
     * itself) are never listed. {@code status} null means any; {@code startingAfter} is the id of the
     * last item of the previous page, or null for the first page.
     */
    Page<Schedule> list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter);

    /**
     * Writes every field of the schedule (matched by id). Returns false when no such row exists. A definition that
     * differs from the stored one is a change to claims held ahead ({@link DeliveryQueue#confirmHeld}); the same
     * definition written again (a pause, a resume, a reset of the failure count) is not.
     */
    boolean update(Schedule schedule);

    /**
     * A cursor move of {@link #advanceCursors}: from {@code expected} (never null: only a schedule with an
     * occurrence left is materialised) to {@code next} (null when the rule has ended), with the sequence of the last
     * occurrence written.
     */
    record CursorMove(String scheduleId, Instant expected, Instant next, long lastSequence) {
        public CursorMove {
            java.util.Objects.requireNonNull(scheduleId, "scheduleId");
            java.util.Objects.requireNonNull(expected, "expected");
        }
    }

    /**
     * Moves each schedule's materialisation cursor only if it is still {@code expected} and the schedule is
     * active, in one statement: the compare-and-set that makes two materialising nodes harmless. The status stays
     * {@code active} even when a rule ends (see {@link #completeIfFinished}).
     *
     * @return the ids of the schedules whose cursor this call moved
     */
    java.util.Set<String> advanceCursors(List<CursorMove> moves, Instant now);

    /**
     * Marks {@code completed} those of {@code scheduleIds} that are active, whose rule has ended (no cursor) and
     * that have no pending delivery. The caller holds the schedules' rows (it moved their cursors or locked them);
     * a delivery another transaction is finishing is waited for (its row is locked) rather than read as pending.
     *
     * @return the ids completed
     */
    java.util.Set<String> completeIfFinished(java.util.Collection<String> scheduleIds, Instant now);

    /**
     * Active schedules whose {@code nextFireAt} is at or before {@code horizon}, earliest first, across
     * all tenants: the materialiser's work list. The rows are locked until the transaction ends; on PostgreSQL
     * rows another transaction holds are skipped ({@code SKIP LOCKED}), so materialising nodes take different pages.
     */
    List<Schedule> dueForMaterialisation(Instant horizon, int limit);
}
