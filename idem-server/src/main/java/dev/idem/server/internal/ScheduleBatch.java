package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Tenant;
import dev.idem.core.TraceContext;
import dev.idem.core.store.StoreTx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/schedules/batch}: {@code {"schedules": [body, …]}}, up to {@value #MAX_ITEMS} create bodies. Each
 * is validated alone; the valid ones are created in the call's one transaction (a store failure creates none);
 * the answer lists, in order, each item's result as a single create would have answered it: the schedule with
 * {@code status_code} 201 (200 and {@code deduplicated} for a {@code dedup_id} already taken), or the error.
 */
final class ScheduleBatch {
    static final int MAX_ITEMS = 1_000;
    /** The whole call; each item is still held to the single create's 256 KiB. */
    static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

    private ScheduleBatch() {}

    /** An item: its parsed body, or the error it gets. */
    record Item(ScheduleParser.Parsed parsed, ApiException error) {}

    /** Validates every item (outside any transaction); throws 400 only when the call itself is malformed. */
    static List<Item> parse(ScheduleService schedules, ObjectNode body, Instant now) {
        Fields.of(body).only(java.util.Set.of("schedules"));
        JsonNode list = body.get("schedules");
        if (list == null || list.isNull())
            throw ApiException.invalid("parameter_missing", "schedules", "Missing required parameter: schedules");
        if (!list.isArray())
            throw ApiException.invalid(
                    "parameter_invalid_type", "schedules", "schedules must be an array of schedule bodies");
        if (list.isEmpty())
            throw ApiException.invalid(
                    "parameter_invalid_empty", "schedules", "schedules must hold at least one schedule body");
        if (list.size() > MAX_ITEMS)
            throw ApiException.invalid(
                    "parameter_too_long",
                    "schedules",
                    "at most " + MAX_ITEMS + " schedules per batch, got " + list.size());
        List<Item> items = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) items.add(item(schedules, list.get(i), now));
        return items;
    }

    private static Item item(ScheduleService schedules, JsonNode node, Instant now) {
        try {
            if (!node.isObject())
                throw ApiException.invalid(
                        "invalid_json", null, "Each batch item must be a JSON object (a schedule body)");
            if (Json.bytes(node).length > HttpApi.MAX_BODY_BYTES)
                throw ApiException.invalid("body_too_large", null, "Schedule body is over 256 KiB");
            return new Item(schedules.parse((ObjectNode) node, now), null);
        } catch (ApiException e) {
            return new Item(null, e);
        }
    }

    /** Creates the valid items in the caller's transaction and answers for all of them, in order. */
    static ApiResponse create(
            StoreTx tx,
            ScheduleService schedules,
            Tenant tenant,
            List<Item> parsed,
            Instant now,
            String requestId,
            TraceContext trace) {
        List<ScheduleParser.Parsed> valid = new ArrayList<>();
        for (Item item : parsed) if (item.parsed() != null) valid.add(item.parsed());
        List<Creation.Result> results =
                valid.isEmpty() ? List.of() : schedules.createAll(tx, tenant, valid, now, trace);
        ObjectNode out = Json.object();
        out.put("object", "batch");
        ArrayNode data = out.putArray("data");
        int next = 0;
        int failed = 0;
        for (int i = 0; i < parsed.size(); i++) {
            Item item = parsed.get(i);
            ObjectNode r = data.addObject();
            r.put("index", i);
            if (item.error() != null) {
                failed++;
                r.put("status_code", item.error().status());
                r.set("error", ErrorMapper.error(item.error(), requestId));
                continue;
            }
            Creation.Result c = results.get(next++);
            r.put("status_code", c.status());
            r.put("deduplicated", "true".equals(c.headers().get("Idem-Deduplicated")));
            r.set("schedule", c.body());
        }
        out.put("created", results.stream().filter(c -> c.status() == 201).count());
        out.put("failed", failed);
        return new ApiResponse(200, out, Map.of());
    }
}
