package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreTx;
import java.util.function.Function;

/**
 * A resource with the five routes of {@code /v1/<things>} and {@code /v1/<things>/{key}}: create, list, get, patch,
 * delete. {@link FanoutRoutes#crud} routes one; mutations run inside the request's transaction (request idempotency).
 */
interface CrudResource {
    ApiResponse create(StoreTx tx, Tenant tenant, ObjectNode body);

    /** A page, newest first (or in the resource's own order); {@code query} reads the request's other parameters. */
    ObjectNode list(Tenant tenant, int limit, String startingAfter, Function<String, String> query);

    ObjectNode get(Tenant tenant, String key);

    ApiResponse patch(StoreTx tx, Tenant tenant, String key, ObjectNode body);

    ApiResponse delete(StoreTx tx, Tenant tenant, String key);
}
