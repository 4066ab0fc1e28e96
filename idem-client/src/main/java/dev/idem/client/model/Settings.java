package dev.idem.client.model;

import java.util.List;

/**
 * The settings of the key's project and mode ({@code GET /v1/settings}): where Idem sends its alerts and which events
 * raise one. The alert bodies are described in {@code docs/alerts.md}.
 *
 * @param alertEndpoint the URL alerts are delivered to, or null when alerts are off
 * @param alertEvents the events that raise an alert: {@link #DELIVERY_DEAD}, {@link #SCHEDULE_AUTO_PAUSED},
 *     {@link #ENDPOINT_DISABLED}
 */
public record Settings(String alertEndpoint, List<String> alertEvents) {
    /** A delivery used up its retries (or its replay failed). */
    public static final String DELIVERY_DEAD = "delivery.dead";
    /** A schedule paused itself after {@code auto_pause_after} failed attempts in a row. */
    public static final String SCHEDULE_AUTO_PAUSED = "schedule.auto_paused";
    /** An endpoint was disabled after every attempt to it failed for its project's {@code disable_after}. */
    public static final String ENDPOINT_DISABLED = "endpoint.disabled";

    public Settings {
        alertEvents = alertEvents == null ? List.of() : List.copyOf(alertEvents);
    }
}
