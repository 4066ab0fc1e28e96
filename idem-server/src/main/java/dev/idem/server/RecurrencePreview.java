package dev.idem.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.server.internal.ApiException;
import dev.idem.server.internal.PreviewService;
import java.time.Clock;
import java.util.Map;

/** The recurrence preview of the API, for callers outside the server (the {@code idem} command). */
public final class RecurrencePreview {
    private RecurrencePreview() {}

    /**
     * The preview for query parameters ({@code rrule|cron}, {@code dtstart}, {@code timezone}, {@code exdates},
     * {@code until}, {@code count}), as the API's JSON.
     *
     * @throws IllegalArgumentException saying what to fix and which parameter, as the API's 400 would
     */
    public static JsonNode of(Map<String, String> params, Clock clock) {
        try {
            return new PreviewService(clock).preview(params);
        } catch (ApiException e) {
            throw new IllegalArgumentException(e.getMessage() + (e.param() == null ? "" : " (" + e.param() + ")"), e);
        }
    }
}
