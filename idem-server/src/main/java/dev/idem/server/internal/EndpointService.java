package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.IdGenerator;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.Application;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /v1/endpoints} operations. The URL passes every check a schedule's endpoint does ({@link
 * ScheduleParser#endpoint}: syntax, ports, private networks), headers every check a schedule's headers do.
 */
final class EndpointService implements CrudResource {
    static final Set<String> FIELDS = Set.of(
            "url",
            "application",
            "description",
            "event_types",
            "filter",
            "headers",
            "rate_limit",
            "disabled",
            "metadata",
            "secret");
    private final Store store;
    private final IdGenerator ids;
    private final Clock clock;
    private final ScheduleParser urls;
    private final EndpointSecretService secrets;

    EndpointService(Store store, IdGenerator ids, Clock clock, ScheduleParser urls, EndpointSecretService secrets) {
        this.store = store;
        this.ids = ids;
        this.clock = clock;
        this.urls = urls;
        this.secrets = secrets;
    }

    @Override
    public ApiResponse create(StoreTx tx, Tenant tenant, ObjectNode body) {
        Fields f = Fields.of(body).only(FIELDS);
        String url = urls.endpoint(f, "url");
        String application = f.string("application", Application.MAX_UID_LENGTH);
        Instant now = clock.instant();
        Endpoint e = new Endpoint(
                ids.next("ep"),
                tenant,
                application == null
                        ? null
                        : FanoutFields.liveApplication(tx, tenant, application, "application")
                                .id(),
                url,
                f.string("description", FanoutFields.MAX_DESCRIPTION_LENGTH),
                FanoutFields.eventTypes(f),
                FanoutFields.filter(f),
                HeaderFields.parse(f),
                FanoutFields.rateLimit(f),
                Boolean.TRUE.equals(f.bool("disabled")) ? DisabledReason.MANUAL : null,
                ScheduleParser.metadata(f),
                false,
                now,
                now);
        SigningSecret secret = secrets.given(f);
        tx.endpoints().insert(e);
        secrets.create(tx, tenant, e.id(), secret);
        return new ApiResponse(201, FanoutViews.endpoint(e), Map.of());
    }

    @Override
    public ObjectNode get(Tenant tenant, String id) {
        return store.inReadTransaction(tx -> withHealth(tx, tenant, find(tx, tenant, id)));
    }

    /** Newest first, of one application when the parameter {@code application} (an id or a uid) is given. */
    @Override
    public ObjectNode list(
            Tenant tenant, int limit, String startingAfter, java.util.function.Function<String, String> query) {
        String application = query.apply("application");
        return store.inReadTransaction(tx -> {
            String applicationId = application == null
                    ? null
                    : ApplicationService.find(tx, tenant, application).id();
            if (startingAfter != null) find(tx, tenant, startingAfter);
            Page<Endpoint> page = tx.endpoints().list(tenant, applicationId, limit, startingAfter);
            var health = tx.endpointHealth()
                    .find(tenant, page.data().stream().map(Endpoint::id).toList());
            java.time.Instant now = clock.instant();
            return Views.list("/v1/endpoints", page, e -> FanoutViews.endpoint(e, health.get(e.id()), now));
        });
    }

    /**
     * Changes what is given; {@code null} clears description, event types (every type again), filter, rate limit and
     * metadata. {@code "disabled": false} enables it again, whatever disabled it, unless its application is deleted.
     * An endpoint does not move between applications.
     */
    @Override
    public ApiResponse patch(StoreTx tx, Tenant tenant, String id, ObjectNode body) {
        Endpoint e = lock(tx, tenant, id);
        if (e.deleted()) throw ApiException.invalid("endpoint_deleted", "id", "Endpoint " + id + " is deleted");
        Fields f = Fields.of(body).only(FIELDS);
        if (f.node().has("secret"))
            throw ApiException.invalid(
                    "parameter_invalid",
                    "secret",
                    "Change an endpoint's secret with POST /v1/endpoints/{id}/secret/rotate");
        if (f.node().has("application")) {
            String given = f.string("application", Application.MAX_UID_LENGTH);
            String wanted = given == null
                    ? null
                    : ApplicationService.find(tx, tenant, given).id();
            if (!java.util.Objects.equals(wanted, e.applicationId()))
                throw ApiException.invalid(
                        "parameter_invalid",
                        "application",
                        "An endpoint stays with its application; create a new endpoint for another one");
        }
        Instant now = clock.instant();
        Endpoint changed = e.with(
                f.node().has("url") ? urls.endpoint(f, "url") : e.url(),
                f.node().has("description")
                        ? f.string("description", FanoutFields.MAX_DESCRIPTION_LENGTH)
                        : e.description(),
                f.node().has("event_types") ? FanoutFields.eventTypes(f) : e.eventTypes(),
                f.node().has("filter") ? FanoutFields.filter(f) : e.filter(),
                f.node().has("headers") ? HeaderFields.parse(f) : e.headers(),
                f.node().has("rate_limit") ? FanoutFields.rateLimit(f) : e.rateLimit(),
                f.node().has("metadata") ? ScheduleParser.metadata(f) : e.metadataJson(),
                now);
        Boolean disabled = f.bool("disabled");
        if (Boolean.TRUE.equals(disabled) && !e.disabled()) changed = changed.withDisabled(DisabledReason.MANUAL, now);
        if (Boolean.FALSE.equals(disabled) && e.disabled()) {
            if (e.applicationId() != null) FanoutFields.liveApplication(tx, tenant, e.applicationId(), "disabled");
            changed = changed.withDisabled(null, now);
            // its failures so far no longer count toward disabling it; nothing is replayed by enabling it
            tx.endpointHealth().enabledAgain(tenant, id);
        }
        tx.endpoints().update(changed);
        return ApiResponse.ok(withHealth(tx, tenant, changed));
    }

    private ObjectNode withHealth(StoreTx tx, Tenant tenant, Endpoint e) {
        return FanoutViews.endpoint(
                e, tx.endpointHealth().find(tenant, java.util.List.of(e.id())).get(e.id()), clock.instant());
    }

    /** Marks it deleted: it receives nothing more; it and its deliveries stay readable. */
    @Override
    public ApiResponse delete(StoreTx tx, Tenant tenant, String id) {
        Endpoint e = lock(tx, tenant, id);
        if (e.deleted()) return ApiResponse.ok(FanoutViews.endpoint(e));
        Endpoint deleted = e.asDeleted(clock.instant());
        tx.endpoints().update(deleted);
        return ApiResponse.ok(FanoutViews.endpoint(deleted));
    }

    static Endpoint find(StoreTx tx, Tenant tenant, String id) {
        return tx.endpoints().find(tenant, id).orElseThrow(() -> ApiException.notFound("endpoint", id));
    }

    static Endpoint lock(StoreTx tx, Tenant tenant, String id) {
        return tx.endpoints().findForUpdate(tenant, id).orElseThrow(() -> ApiException.notFound("endpoint", id));
    }
}
