package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Page;
import dev.idem.core.Tenant;
import dev.idem.core.fanout.EventSchema;
import dev.idem.core.fanout.EventType;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * The {@code /v1/event-types} operations, by name. A schema is checked against its draft's meta-schema, and an example
 * against the schema, so what is stored can be relied on when messages are sent.
 */
final class EventTypeService implements CrudResource {
    static final Set<String> CREATE_FIELDS = Set.of("name", "description", "schema", "example", "deprecated");
    static final Set<String> PATCH_FIELDS = Set.of("description", "schema", "example", "deprecated");
    static final int MAX_EXAMPLE_BYTES = 64 * 1024;
    private final Store store;
    private final Clock clock;

    EventTypeService(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    @Override
    public ApiResponse create(StoreTx tx, Tenant tenant, ObjectNode body) {
        Fields f = Fields.of(body).only(CREATE_FIELDS);
        String name = f.requiredString("name", EventType.MAX_NAME_LENGTH);
        EventType.nameProblem(name).ifPresent(p -> {
            throw ApiException.invalid("parameter_invalid", "name", p);
        });
        EventSchema schema = FanoutFields.schema(f);
        String example = example(f);
        FanoutFields.conform(schema, example, "example", "example_invalid");
        Instant now = clock.instant();
        EventType t = new EventType(
                tenant,
                name,
                f.string("description", FanoutFields.MAX_DESCRIPTION_LENGTH),
                schema,
                example,
                Boolean.TRUE.equals(f.bool("deprecated")),
                now,
                now);
        if (!tx.eventTypes().insert(t))
            throw ApiException.invalid(
                    "resource_already_exists", "name", "An event type named '" + name + "' exists already");
        return new ApiResponse(201, FanoutViews.eventType(t), Map.of());
    }

    @Override
    public ObjectNode get(Tenant tenant, String name) {
        return FanoutViews.eventType(store.inReadTransaction(tx -> find(tx, tenant, name)));
    }

    /** In name order; {@code starting_after} is a name. */
    @Override
    public ObjectNode list(
            Tenant tenant, int limit, String startingAfter, java.util.function.Function<String, String> query) {
        return store.inReadTransaction(tx -> {
            Page<EventType> page = tx.eventTypes().list(tenant, limit, startingAfter);
            return Views.list("/v1/event-types", page, FanoutViews::eventType);
        });
    }

    /** Changes what is given; {@code null} clears description, schema and example. */
    @Override
    public ApiResponse patch(StoreTx tx, Tenant tenant, String name, ObjectNode body) {
        EventType t = find(tx, tenant, name);
        Fields f = Fields.of(body).only(PATCH_FIELDS);
        EventSchema schema = f.node().has("schema") ? FanoutFields.schema(f) : t.schema();
        String example = f.node().has("example") ? example(f) : t.exampleJson();
        FanoutFields.conform(schema, example, "example", "example_invalid");
        Boolean deprecated = f.bool("deprecated");
        EventType changed = t.with(
                f.node().has("description")
                        ? f.string("description", FanoutFields.MAX_DESCRIPTION_LENGTH)
                        : t.description(),
                schema,
                example,
                deprecated == null ? t.deprecated() : deprecated,
                clock.instant());
        tx.eventTypes().update(changed);
        return ApiResponse.ok(FanoutViews.eventType(changed));
    }

    /** Removes it; messages already sent keep the name, and new ones may still use it (unchecked). */
    @Override
    public ApiResponse delete(StoreTx tx, Tenant tenant, String name) {
        EventType t = find(tx, tenant, name);
        tx.eventTypes().delete(tenant, name);
        ObjectNode o = FanoutViews.eventType(t);
        o.put("deleted", true);
        return ApiResponse.ok(o);
    }

    private static String example(Fields f) {
        JsonNode n = f.raw("example");
        if (n == null || n.isNull()) return null;
        String text = JsonBody.text(n);
        if (text.length() > MAX_EXAMPLE_BYTES)
            throw ApiException.invalid("parameter_too_long", "example", "example must be at most 64 KiB");
        return text;
    }

    private static EventType find(StoreTx tx, Tenant tenant, String name) {
        return tx.eventTypes().find(tenant, name).orElseThrow(() -> ApiException.notFound("event type", name));
    }
}
