package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Page;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Instant;

/** The {@code /v1/sources} operations; the ingest route is {@link SourceIngest}. */
final class SourceService {
    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final SourceFields fields;
    private final SourceIngest ingest;

    SourceService(Store store, IdGenerator ids, Clock clock, SourceFields fields, SourceIngest ingest) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.fields = fields;
        this.ingest = ingest;
    }

    ApiResponse create(StoreTx tx, Tenant tenant, ObjectNode body, String baseUrl) {
        Source s = fields.create(tx, ids.next("src"), tenant, body, clock.instant());
        tx.sources().insert(s);
        return new ApiResponse(201, SourceViews.source(s, baseUrl), java.util.Map.of());
    }

    ObjectNode get(Tenant tenant, String id, String baseUrl) {
        return SourceViews.source(store.inReadTransaction(tx -> find(tx, tenant, id)), baseUrl);
    }

    ObjectNode list(Tenant tenant, int limit, String startingAfter, String baseUrl) {
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) find(tx, tenant, startingAfter);
            Page<Source> page = tx.sources().list(tenant, limit, startingAfter);
            return Views.list("/v1/sources", page, s -> SourceViews.source(s, baseUrl));
        });
    }

    /** Changes settings; a new {@code verify.secret} rotates (the previous one verifies for a day more). */
    ApiResponse patch(StoreTx tx, Tenant tenant, String id, ObjectNode body, String baseUrl) {
        Source s = lock(tx, tenant, id);
        if (s.deleted())
            throw ApiException.invalid("source_deleted", "id", "Source " + id + " is deleted and cannot be changed");
        Source updated = fields.patch(tx, s, body, clock.instant());
        tx.sources().update(updated);
        ingest.forget(id);
        return ApiResponse.ok(SourceViews.source(updated, baseUrl));
    }

    /** Stops ingest (404 from then on); events already accepted are still delivered. History is kept. */
    ApiResponse delete(StoreTx tx, Tenant tenant, String id, String baseUrl) {
        Source s = lock(tx, tenant, id);
        Instant now = clock.instant();
        Source deleted = s.deleted() ? s : s.asDeleted(now);
        if (!s.deleted()) tx.sources().update(deleted);
        ingest.forget(id);
        return ApiResponse.ok(SourceViews.source(deleted, baseUrl));
    }

    private static Source find(StoreTx tx, Tenant tenant, String id) {
        return tx.sources().find(tenant, id).orElseThrow(() -> ApiException.notFound("source", id));
    }

    private static Source lock(StoreTx tx, Tenant tenant, String id) {
        return tx.sources().findForUpdate(tenant, id).orElseThrow(() -> ApiException.notFound("source", id));
    }
}
