package dev.idem.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.CatchUp;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.RecurrenceSpec;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Stores a {@link Timing} as a small JSON object tagged by {@code kind}. A new variant adds one
 * branch to each method here; nothing else in the store changes.
 */
final class TimingCodec {
    private TimingCodec() {}

    static ObjectNode write(Timing timing) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("kind", timing.kind());
        if (timing instanceof Timing.Once once) {
            n.put("fire_at", once.fireAt().toEpochMilli());
            return n;
        }
        if (timing instanceof Timing.Recurring r) {
            RecurrenceSpec spec = r.spec();
            n.put("expression", spec.expression());
            n.put("timezone", spec.timezone().getId());
            if (spec.dtstart() != null) n.put("dtstart", spec.dtstart().toString());
            ArrayNode ex = n.putArray("exdates");
            spec.exdates().forEach(d -> ex.add(d.toString()));
            if (spec.until() != null) n.put("until", spec.until().toEpochMilli());
            if (spec.count() != null) n.put("count", spec.count());
            n.put("catch_up", r.catchUp().wireName());
            return n;
        }
        throw new IllegalArgumentException("no stored form for timing kind " + timing.kind() + " (" + timing.getClass().getName() + ")");
    }

    static Timing read(JsonNode n) {
        String kind = DefinitionCodec.text(n, "kind");
        if ("once".equals(kind)) return new Timing.Once(Instant.ofEpochMilli(DefinitionCodec.required(n, "fire_at").asLong()));
        if ("rrule".equals(kind) || "cron".equals(kind)) {
            List<LocalDateTime> exdates = new ArrayList<>();
            JsonNode ex = n.get("exdates");
            if (ex != null) ex.forEach(d -> exdates.add(LocalDateTime.parse(d.asText())));
            JsonNode dtstart = n.get("dtstart");
            JsonNode until = n.get("until");
            JsonNode count = n.get("count");
            RecurrenceSpec spec = new RecurrenceSpec("rrule".equals(kind) ? RecurrenceSpec.Kind.RRULE : RecurrenceSpec.Kind.CRON,
                    DefinitionCodec.text(n, "expression"), ZoneId.of(DefinitionCodec.text(n, "timezone")),
                    dtstart == null || dtstart.isNull() ? null : LocalDateTime.parse(dtstart.asText()), exdates,
                    until == null || until.isNull() ? null : Instant.ofEpochMilli(until.asLong()),
                    count == null || count.isNull() ? null : count.asInt());
            return new Timing.Recurring(spec, CatchUp.parse(DefinitionCodec.text(n, "catch_up")));
        }
        throw new IllegalStateException("stored schedule has unknown timing kind '" + kind + "'");
    }
}
