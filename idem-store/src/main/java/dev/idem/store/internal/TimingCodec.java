package dev.idem.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.CatchUp;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.InvalidRecurrenceException;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.recurrence.Recurrences;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores a {@link Timing} as a small JSON object tagged by {@code kind}. A new variant adds one
 * branch to each method here; nothing else in the store changes.
 *
 * <p>{@code once}: {@code fire_at} (epoch ms). {@code rrule} / {@code cron}: {@code expression},
 * {@code timezone} (IANA id), {@code dtstart} and {@code exdates} (ISO local date-times),
 * {@code until} (epoch ms), {@code count}, {@code catch_up}.
 */
final class TimingCodec {
    /**
     * Compiled rules by their stored form: every claim decodes its schedule, and compiling a counted rule
     * walks it from DTSTART. A {@link Timing.Recurring} is immutable, so sharing one is safe.
     */
    private static final Map<String, Timing> COMPILED = new ConcurrentHashMap<>();

    private static final int CACHE_LIMIT = 10_000;

    private static final Logger log = LoggerFactory.getLogger(TimingCodec.class);

    /**
     * Stored rules already warned about (see {@link #warnIfRefusedAsNewInput}, {@link #warnIfReadingChanged}): each is
     * said once per process.
     */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private TimingCodec() {}

    static ObjectNode write(Timing timing) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("kind", timing.kind());
        if (timing instanceof Timing.Once once) {
            n.put("fire_at", once.fireAt().toEpochMilli());
        } else if (timing instanceof Timing.Recurring r) {
            RecurrenceSpec spec = r.spec();
            n.put("expression", spec.expression());
            n.put("timezone", spec.timezone().getId());
            if (spec.dtstart() == null) n.putNull("dtstart");
            else n.put("dtstart", spec.dtstart().toString());
            ArrayNode exdates = n.putArray("exdates");
            spec.exdates().forEach(x -> exdates.add(x.toString()));
            if (spec.until() == null) n.putNull("until");
            else n.put("until", spec.until().toEpochMilli());
            if (spec.count() == null) n.putNull("count");
            else n.put("count", spec.count());
            n.put("catch_up", r.catchUp().wireName());
        } else {
            throw new IllegalArgumentException("no stored form for timing kind " + timing.kind() + " ("
                    + timing.getClass().getName() + ")");
        }
        return n;
    }

    static Timing read(JsonNode n) {
        String kind = DefinitionCodec.text(n, "kind");
        return switch (String.valueOf(kind)) {
            case "once" ->
                new Timing.Once(Instant.ofEpochMilli(
                        DefinitionCodec.required(n, "fire_at").asLong()));
            case "rrule" -> cached(n, RecurrenceSpec.Kind.RRULE);
            case "cron" -> cached(n, RecurrenceSpec.Kind.CRON);
            default -> throw new IllegalStateException("stored schedule has unknown timing kind '" + kind + "'");
        };
    }

    private static Timing cached(JsonNode n, RecurrenceSpec.Kind kind) {
        String stored = n.toString();
        Timing hit = COMPILED.get(stored);
        if (hit != null) return hit;
        Timing compiled = recurring(n, kind);
        if (COMPILED.size() >= CACHE_LIMIT) COMPILED.clear();
        COMPILED.put(stored, compiled);
        return compiled;
    }

    private static Timing recurring(JsonNode n, RecurrenceSpec.Kind kind) {
        String dtstart = DefinitionCodec.text(n, "dtstart");
        List<LocalDateTime> exdates = new ArrayList<>();
        JsonNode ex = n.get("exdates");
        if (ex != null) ex.forEach(x -> exdates.add(LocalDateTime.parse(x.asText())));
        JsonNode until = n.get("until");
        JsonNode count = n.get("count");
        RecurrenceSpec spec = new RecurrenceSpec(
                kind,
                DefinitionCodec.text(n, "expression"),
                ZoneId.of(DefinitionCodec.text(n, "timezone")),
                dtstart == null ? null : LocalDateTime.parse(dtstart),
                exdates,
                until == null || until.isNull() ? null : Instant.ofEpochMilli(until.asLong()),
                count == null || count.isNull() ? null : count.asInt());
        warnIfRefusedAsNewInput(spec);
        String catchUp = DefinitionCodec.text(n, "catch_up");
        Timing.Recurring compiled =
                new Timing.Recurring(spec, catchUp == null ? CatchUp.LATEST : CatchUp.parse(catchUp));
        warnIfReadingChanged(spec);
        return compiled;
    }

    /**
     * A cron stored by an earlier version may use a construct this version reads differently (a day-of-month list
     * with {@code L}, {@code L-n}, {@code LW} or {@code nW}; a day-of-week {@code L} alone): its schedule now fires at
     * other instants than it did, and nothing else says so. The operator is told once per process, with what the
     * construct means now. The stored form does not record which version wrote it, so a cron stored since the change
     * is described too, in words true of both. Checked after the rule compiled, so only a rule that loads is
     * described.
     */
    private static void warnIfReadingChanged(RecurrenceSpec spec) {
        List<String> changed = Recurrences.changedReadings(spec);
        if (!changed.isEmpty() && firstWarning("reading:" + spec.expression())) {
            log.warn(
                    "a stored schedule's cron '{}' uses a construct that versions of Idem before 2026-11-26 read"
                            + " differently: {}. A schedule stored by one of them may now fire at other instants;"
                            + " one stored since then fires as written. Logged once per process for every such"
                            + " cron, whenever it was stored (the stored form does not say which version wrote it)",
                    spec.expression(),
                    String.join("; ", changed));
        }
    }

    /**
     * A rule stored before new input refused its form (a cron {@code ?} inside a list, a day-of-week {@code L-n})
     * still loads and fires as it always did, since refusing it here would stop its schedule; the operator is told
     * once, to have it rewritten.
     */
    private static void warnIfRefusedAsNewInput(RecurrenceSpec spec) {
        try {
            Recurrences.checkInput(spec);
        } catch (InvalidRecurrenceException e) {
            if (firstWarning(spec.expression())) {
                log.warn(
                        "a stored schedule's {} '{}' loads and fires as before, but new input with it is refused"
                                + " (so is any PATCH of that schedule until the {} is rewritten): {}",
                        e.param(),
                        spec.expression(),
                        e.param(),
                        e.getMessage());
            }
        }
    }

    /** Whether a warning under {@code key} is due: not said yet in this process, and the set still has room. */
    private static boolean firstWarning(String key) {
        return WARNED.size() < CACHE_LIMIT && WARNED.add(key);
    }
}
