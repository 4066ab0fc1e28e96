package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /v1/applications} operations. An application is named by its id or its uid in every path. Deleting one
 * disables its endpoints (reason {@code application_deleted}) and keeps it, its endpoints and their history readable.
 */
final class ApplicationService implements CrudResource {
    static final Set<String> FIELDS = Set.of("uid", "name", "metadata", "rate_limit");
    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;

    ApplicationService(Store store, IdGenerator ids, Clock clock) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
    }

    @Override
    public ApiResponse create(StoreTx tx, Tenant tenant, ObjectNode body) {
        Fields f = Fields.of(body).only(FIELDS);
        Instant now = clock.instant();
        Application a = new Application(
                ids.next("app"),
                tenant,
                uid(f),
                f.requiredString("name", FanoutFields.MAX_NAME_LENGTH),
                ScheduleParser.metadata(f),
                FanoutFields.rateLimit(f),
                false,
                now,
                now);
        if (!tx.applications().insert(a)) throw uidTaken(a.uid());
        return new ApiResponse(201, FanoutViews.application(a), Map.of());
    }

    @Override
    public ObjectNode get(Tenant tenant, String reference) {
        return FanoutViews.application(store.inReadTransaction(tx -> find(tx, tenant, reference)));
    }

    @Override
    public ObjectNode list(
            Tenant tenant, int limit, String startingAfter, java.util.function.Function<String, String> query) {
        return store.inReadTransaction(tx -> {
            if (startingAfter != null) find(tx, tenant, startingAfter);
            Page<Application> page = tx.applications().list(tenant, limit, startingAfter);
            return Views.list("/v1/applications", page, FanoutViews::application);
        });
    }

    /** Changes what is given; {@code null} clears {@code uid}, {@code metadata} and {@code rate_limit}. */
    @Override
    public ApiResponse patch(StoreTx tx, Tenant tenant, String reference, ObjectNode body) {
        Application a = lock(tx, tenant, reference);
        if (a.deleted())
            throw ApiException.invalid(
                    "application_deleted", "id", "Application " + a.id() + " is deleted and cannot be changed");
        Fields f = Fields.of(body).only(FIELDS);
        String uid = f.node().has("uid") ? uid(f) : a.uid();
        if (uid != null && !uid.equals(a.uid()) && tx.applications().uidTaken(tenant, uid, a.id())) throw uidTaken(uid);
        Application changed = a.with(
                uid,
                f.node().has("name") ? f.requiredString("name", FanoutFields.MAX_NAME_LENGTH) : a.name(),
                f.node().has("metadata") ? ScheduleParser.metadata(f) : a.metadataJson(),
                f.node().has("rate_limit") ? FanoutFields.rateLimit(f) : a.rateLimit(),
                clock.instant());
        tx.applications().update(changed);
        return ApiResponse.ok(FanoutViews.application(changed));
    }

    /** Marks it deleted (its uid is free again) and disables its endpoints; deleting it twice changes nothing. */
    @Override
    public ApiResponse delete(StoreTx tx, Tenant tenant, String reference) {
        Application a = lock(tx, tenant, reference);
        if (a.deleted()) return ApiResponse.ok(FanoutViews.application(a));
        Instant now = clock.instant();
        Application deleted = a.asDeleted(now);
        tx.applications().update(deleted);
        tx.endpoints().disableAll(tenant, a.id(), DisabledReason.APPLICATION_DELETED, now);
        return ApiResponse.ok(FanoutViews.application(deleted));
    }

    private static String uid(Fields f) {
        String uid = f.string("uid", Application.MAX_UID_LENGTH);
        if (uid != null)
            Application.uidProblem(uid).ifPresent(p -> {
                throw ApiException.invalid("parameter_invalid", "uid", p);
            });
        return uid;
    }

    private static ApiException uidTaken(String uid) {
        return ApiException.invalid(
                "resource_already_exists", "uid", "An application with uid '" + uid + "' exists already");
    }

    static Application find(StoreTx tx, Tenant tenant, String reference) {
        return tx.applications()
                .find(tenant, reference)
                .orElseThrow(() -> ApiException.notFound("application", reference));
    }

    private static Application lock(StoreTx tx, Tenant tenant, String reference) {
        return tx.applications()
                .findForUpdate(tenant, reference)
                .orElseThrow(() -> ApiException.notFound("application", reference));
    }
}
