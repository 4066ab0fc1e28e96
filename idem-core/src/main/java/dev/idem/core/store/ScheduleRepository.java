package dev.idem.core.store;

import dev.idem.core.Page;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

public interface ScheduleRepository {
    void insert(Schedule schedule);

    /** The schedule with this id in this tenant; empty for another tenant's (so ids leak nothing). */
    Optional<Schedule> find(Tenant tenant, String id);

    /**
     * Like {@link #find} but locks the row until the transaction ends ({@code SELECT … FOR UPDATE} on
     * PostgreSQL; SQLite's single writer serialises anyway).
     */
    Optional<Schedule> findForUpdate(Tenant tenant, String id);

    /**
     * Newest first (ids descend). {@code status} null means any; {@code startingAfter} is the id of the
     * last item of the previous page, or null for the first page.
     */
    Page<Schedule> list(Tenant tenant, ScheduleStatus status, int limit, String startingAfter);

    /** Writes every field of the schedule (matched by id). Returns false when no such row exists. */
    boolean update(Schedule schedule);

    /**
     * Moves the materialisation cursor only if it is still {@code expectedNextFireAt} and the schedule
     * is active: the compare-and-set that makes two materialising nodes harmless. Sets status to
     * {@code COMPLETED} when {@code newNextFireAt} is null.
     *
     * @return true when this caller won
     */
    boolean advanceCursor(String scheduleId, Instant expectedNextFireAt, Instant newNextFireAt, long newLastSequence, Instant now);

    /**
     * Active schedules whose {@code nextFireAt} is at or before {@code horizon}, earliest first, across
     * all tenants: the materialiser's work list.
     */
    List<Schedule> dueForMaterialisation(Instant horizon, int limit);
}
