package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Durations;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Timing;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * {@code PATCH /v1/schedules/{id}}: the patch is laid over the schedule's current definition, written
 * as a create body, and the result goes through the same validation as a create. A field set to
 * {@code null} is cleared (back to its default); {@code retry} merges field by field; {@code flow_control} is
 * replaced whole.
 */
final class SchedulePatch {
    private static final Set<String> IMMUTABLE = Set.of("idempotency_key", "dedup_id");
    private static final Set<String> RULE_FIELDS =
            Set.of("rrule", "cron", "timezone", "dtstart", "exdates", "until", "count", "catch_up");

    private SchedulePatch() {}

    static ScheduleParser.Parsed apply(
            ScheduleParser parser, ScheduleDefinition current, ObjectNode patch, Instant now) {
        for (Iterator<String> it = patch.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (IMMUTABLE.contains(f))
                throw ApiException.invalid(
                        "parameter_immutable", f, f + " cannot be changed; create a new schedule instead");
            if (!ScheduleParser.CREATE_FIELDS.contains(f))
                throw ApiException.invalid("parameter_unknown", f, "Received unknown parameter: " + f);
        }
        boolean recurring = current.recurring();
        if (!recurring && patch.fieldNames().hasNext() && RULE_FIELDS.stream().anyMatch(patch::has))
            throw ApiException.invalid(
                    "parameter_unexpected",
                    RULE_FIELDS.stream().filter(patch::has).findFirst().orElseThrow(),
                    "a one-shot schedule cannot become recurring; create a new schedule");
        if (recurring && (patch.has("delay") || patch.has("fire_at")))
            throw ApiException.invalid(
                    "parameter_unexpected",
                    patch.has("delay") ? "delay" : "fire_at",
                    "a recurring schedule cannot become a one-shot; create a new schedule");

        ObjectNode merged = asCreateBody(current);
        if (patch.has("delay")) merged.remove("fire_at");
        if (patch.has("rrule")) merged.remove("cron");
        if (patch.has("cron")) {
            merged.remove("rrule");
            merged.remove("dtstart");
        }
        if (patch.has("payload")) {
            merged.remove("body");
            merged.remove("content_type");
        }
        if (patch.has("body")) merged.remove("payload");
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            var e = it.next();
            JsonNode v = e.getValue();
            if (v.isNull()) merged.remove(e.getKey());
            else if (e.getKey().equals("retry") && v.isObject() && merged.has("retry"))
                ((ObjectNode) merged.get("retry")).setAll((ObjectNode) v);
            else merged.set(e.getKey(), v);
        }
        return parser.parseCreate(merged, now);
    }

    /** The definition as the create body that would make it. */
    static ObjectNode asCreateBody(ScheduleDefinition d) {
        ObjectNode o = Json.object();
        var target = dev.idem.core.fanout.FanOutTarget.of(d.endpoint());
        if (target.isPresent()) {
            // a fan-out's definition holds only what a target allows; the rest are the defaults it was made with
            o.set("target", Views.target(target.get()));
            if (target.get().applicationId() == null) ((ObjectNode) o.get("target")).remove("application");
            timing(o, d);
            if (d.payloadJson() != null) o.set("payload", JsonBody.verbatim(d.payloadJson()));
            if (d.dedupId() != null) o.put("dedup_id", d.dedupId());
            if (d.metadataJson() != null) o.set("metadata", Json.parseStored(d.metadataJson()));
            return o;
        }
        o.put("endpoint", d.endpoint());
        timing(o, d);
        if (d.payloadJson() != null) o.set("payload", JsonBody.verbatim(d.payloadJson()));
        if (d.body() != null) {
            o.put("body", d.body());
            o.put("content_type", d.contentType());
        }
        if (!d.headers().isEmpty()) {
            ObjectNode h = o.putObject("headers");
            d.headers().forEach(h::put);
        }
        if (d.eventType() != null) o.put("event_type", d.eventType());
        if (d.idempotencyKey() != null) o.put("idempotency_key", d.idempotencyKey());
        if (d.dedupId() != null) o.put("dedup_id", d.dedupId());
        o.set("retry", Views.retry(d.retry()));
        o.put("timeout", Durations.format(d.timeout()));
        o.put("auto_pause_after", d.autoPauseAfter());
        o.put("header_profile", d.headerProfile().wireName());
        if (d.metadataJson() != null) o.set("metadata", Json.parseStored(d.metadataJson()));
        if (d.flowControl() != null) o.set("flow_control", Views.flowControl(d.flowControl()));
        return o;
    }

    private static void timing(ObjectNode o, ScheduleDefinition d) {
        if (d.timing() instanceof Timing.Once once) o.put("fire_at", Json.time(once.fireAt()));
        if (d.timing() instanceof Timing.Recurring r) {
            var spec = r.spec();
            o.put(r.kind(), spec.expression());
            o.put("timezone", spec.timezone().getId());
            if (spec.dtstart() != null) o.put("dtstart", Views.LOCAL.format(spec.dtstart()));
            if (!spec.exdates().isEmpty()) {
                var ex = o.putArray("exdates");
                spec.exdates().forEach(x -> ex.add(Views.LOCAL.format(x)));
            }
            if (spec.until() != null) o.put("until", Json.time(spec.until()));
            if (spec.count() != null) o.put("count", spec.count());
            o.put("catch_up", r.catchUp().wireName());
        }
    }
}
