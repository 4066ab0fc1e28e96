package dev.idem.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.CatchUp;
import dev.idem.core.Timing;
import dev.idem.core.recurrence.Occurrence;
import dev.idem.core.recurrence.Preview;
import dev.idem.core.recurrence.RecurrenceSpec;
import dev.idem.core.recurrence.Recurrences;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code GET /v1/recurrence/preview} and {@code idem recurrence preview}: the same compile path as the scheduler. */
public final class PreviewService {
    private static final Set<String> PARAMS =
            Set.of("rrule", "cron", "dtstart", "timezone", "exdates", "until", "count");
    private final Clock clock;

    public PreviewService(Clock clock) {
        this.clock = clock;
    }

    /** @param params the query parameters, one value each */
    public ObjectNode preview(Map<String, String> params) {
        Preview found = search(params);
        ObjectNode out = Json.object();
        ArrayNode list = out.putArray("occurrences");
        for (Occurrence o : found.occurrences())
            list.addObject().put("local", Views.LOCAL.format(o.local())).put("utc", Json.time(o.utc()));
        // the route needs no key, so one call's search is bounded; say when that, not the rule's end, made the list
        // short
        out.put("stopped_early", found.stoppedEarly());
        return out;
    }

    /**
     * What {@link #preview} lists, with the work its search did ({@link Preview#examined()}).
     *
     * @param params the query parameters, one value each
     */
    public Preview search(Map<String, String> params) {
        for (String p : params.keySet())
            if (!PARAMS.contains(p))
                throw ApiException.invalid("parameter_unknown", p, "Received unknown parameter: " + p);
        String rrule = blank(params.get("rrule"));
        String cron = blank(params.get("cron"));
        if ((rrule == null) == (cron == null))
            throw ApiException.invalid(
                    "parameter_missing", rrule == null ? "rrule" : "cron", "Give exactly one of rrule or cron");
        int n = 10;
        String count = blank(params.get("count"));
        if (count != null) {
            try {
                n = Integer.parseInt(count);
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 1 || n > Recurrences.MAX_PREVIEW)
                throw ApiException.invalid(
                        "parameter_out_of_range",
                        "count",
                        "count must be an integer between 1 and " + Recurrences.MAX_PREVIEW);
        }
        String exdates = blank(params.get("exdates"));
        // one reading of the clock: the default dtstart and the first occurrence come from the same "now", as on create
        java.time.Instant now = clock.instant();
        Timing.Recurring timing = RecurrenceFields.spec(
                rrule != null ? RecurrenceSpec.Kind.RRULE : RecurrenceSpec.Kind.CRON,
                rrule != null ? rrule : cron,
                blank(params.get("timezone")),
                blank(params.get("dtstart")),
                exdates == null
                        ? List.of()
                        : RecurrenceFields.exdates(Json.MAPPER.getNodeFactory().textNode(exdates)),
                blank(params.get("until")),
                null,
                now,
                CatchUp.LATEST);
        // a cron occurrence at this very instant is a schedule's first
        // (Timing.first includes now), so the preview's too
        return timing.recurrence().previewSearch(now.minusNanos(1), n);
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
