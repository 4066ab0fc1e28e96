package dev.idem.client;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.client.internal.ApiCall;
import dev.idem.client.internal.Json;
import dev.idem.client.model.BulkReplay;
import dev.idem.client.model.Delivery;
import dev.idem.client.model.ListParams;
import dev.idem.client.model.ReplayFilter;

/** {@code /v1/deliveries}: list (status {@code dead} is the dead-letter queue), read with attempts, replay one or in bulk. */
public final class Deliveries {
    private static final JavaType BULK = Json.MAPPER.constructType(BulkReplay.class);
    private final IdemClient client;
    private final ResourceCalls<Delivery> calls;

    Deliveries(IdemClient client) {
        this.client = client;
        this.calls = new ResourceCalls<>(client, "/v1/deliveries", Delivery.class, Delivery::id);
    }

    /**
     * {@code GET /v1/deliveries}, newest first, narrowed by {@link ListParams.Builder#scheduleId}, {@link
     * ListParams.Builder#status}, {@link ListParams.Builder#endpointId}, {@link ListParams.Builder#application}, {@link
     * ListParams.Builder#eventType} (messages' deliveries), {@link ListParams.Builder#since} and {@link
     * ListParams.Builder#until} (when each delivery was created).
     */
    public Page<Delivery> list(ListParams params) {
        return calls.list(params);
    }

    /** {@code GET /v1/deliveries/{id}} with every attempt. */
    public Delivery get(String id) {
        return calls.get(id);
    }

    /** {@code POST /v1/deliveries/{id}/replay}: a dead or succeeded delivery gets one more attempt now, same key. */
    public Delivery replay(String id) {
        return replay(id, RequestOptions.none());
    }

    public Delivery replay(String id, RequestOptions options) {
        return calls.mutate("POST", calls.path(id) + "/replay", null, options);
    }

    /**
     * {@code POST /v1/deliveries/replay}: replays every dead delivery matching {@code filter} (bulk recovery). The call's
     * automatic {@code Idempotency-Key} covers its retries: one after a lost answer or a failure part-way carries on
     * where the first stopped on the server, and nothing is replayed twice.
     */
    public BulkReplay replayAll(ReplayFilter filter) {
        return replayAll(filter, RequestOptions.none());
    }

    public BulkReplay replayAll(ReplayFilter filter, RequestOptions options) {
        return client.send(ApiCall.<BulkReplay>mutate("POST", "/v1/deliveries/replay", filter.bytes(), BULK), options)
                .value();
    }
}
