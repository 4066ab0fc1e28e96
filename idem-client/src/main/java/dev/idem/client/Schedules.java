package dev.idem.client;

import dev.idem.client.model.ListParams;
import dev.idem.client.model.Schedule;
import dev.idem.client.model.ScheduleCreate;
import dev.idem.client.model.ScheduleUpdate;
import java.nio.charset.StandardCharsets;

/** {@code /v1/schedules}: create, read, list, update, pause, resume, delete. Every mutating call is idempotent (its own key). */
public final class Schedules {
    private final ResourceCalls<Schedule> calls;

    Schedules(IdemClient client) {
        this.calls = new ResourceCalls<>(client, "/v1/schedules", Schedule.class, Schedule::id);
    }

    /** {@code POST /v1/schedules}: 201 with the new schedule (200 with the first one when its {@code dedup_id} matched). */
    public Schedule create(ScheduleCreate request) {
        return create(request, RequestOptions.none());
    }

    public Schedule create(ScheduleCreate request, RequestOptions options) {
        return createWithResponse(request, options).value();
    }

    /** The create with its HTTP details: whether it was replayed ({@code Idempotency-Key}) or deduplicated ({@code dedup_id}). */
    public IdemResponse<Schedule> createWithResponse(ScheduleCreate request, RequestOptions options) {
        return calls.create(request.bytes(), options);
    }

    /** {@code GET /v1/schedules/{id}}; a missing id is an {@link IdemException} of type {@code not_found_error}. */
    public Schedule get(String id) {
        return calls.get(id);
    }

    /** {@code GET /v1/schedules}, newest first; the page walks on to the rest with {@link Page#autoPaging()}. */
    public Page<Schedule> list(ListParams params) {
        return calls.list(params);
    }

    public Page<Schedule> list() {
        return list(ListParams.none());
    }

    /** {@code PATCH /v1/schedules/{id}}. */
    public Schedule update(String id, ScheduleUpdate update) {
        return update(id, update, RequestOptions.none());
    }

    public Schedule update(String id, ScheduleUpdate update, RequestOptions options) {
        return calls.mutate("PATCH", calls.path(id), update.toJson().getBytes(StandardCharsets.UTF_8), options);
    }

    /** {@code POST /v1/schedules/{id}/pause}: no delivery is attempted and no occurrence materialised until resumed. */
    public Schedule pause(String id) {
        return pause(id, RequestOptions.none());
    }

    public Schedule pause(String id, RequestOptions options) {
        return calls.mutate("POST", calls.path(id) + "/pause", null, options);
    }

    /** {@code POST /v1/schedules/{id}/resume}: resets {@code consecutive_failures}; missed occurrences follow {@code catch_up}. */
    public Schedule resume(String id) {
        return resume(id, RequestOptions.none());
    }

    public Schedule resume(String id, RequestOptions options) {
        return calls.mutate("POST", calls.path(id) + "/resume", null, options);
    }

    /** {@code DELETE /v1/schedules/{id}}: pending deliveries are cancelled, history kept; returns the deleted schedule. */
    public Schedule delete(String id) {
        return delete(id, RequestOptions.none());
    }

    public Schedule delete(String id, RequestOptions options) {
        return calls.mutate("DELETE", calls.path(id), null, options);
    }
}
