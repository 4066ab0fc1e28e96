package dev.idem.core;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one tenant (project and mode): where its operational alerts go and which ones it wants.
 *
 * @param alertEndpoint the http(s) URL alerts are delivered to, or null for no alerts
 * @param alertEvents the events that raise an alert (every event unless the project chose otherwise)
 * @param disableAfter how long every attempt to an endpoint must have failed before it is disabled
 */
public record ProjectSettings(
        Tenant tenant, String alertEndpoint, Set<AlertEvent> alertEvents, java.time.Duration disableAfter) {
    /** The shortest {@code disable_after}: an hour (a brief outage should not disable anything). */
    public static final java.time.Duration MIN_DISABLE_AFTER = java.time.Duration.ofHours(1);

    /** Settings with the default {@code disable_after}. */
    public ProjectSettings(Tenant tenant, String alertEndpoint, Set<AlertEvent> alertEvents) {
        this(tenant, alertEndpoint, alertEvents, dev.idem.core.outcome.EndpointHealth.DEFAULT_DISABLE_AFTER);
    }

    public ProjectSettings {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(alertEvents, "alertEvents");
        Objects.requireNonNull(disableAfter, "disableAfter");
        if (disableAfter.compareTo(MIN_DISABLE_AFTER) < 0)
            throw new IllegalArgumentException("disable_after must be at least 1h");
        alertEvents = alertEvents.isEmpty()
                ? Collections.unmodifiableSet(EnumSet.noneOf(AlertEvent.class))
                : Collections.unmodifiableSet(EnumSet.copyOf(alertEvents));
    }

    /** A tenant that never changed its settings: no alert endpoint, every event chosen (so setting an endpoint is enough). */
    public static ProjectSettings defaults(Tenant tenant) {
        return new ProjectSettings(tenant, null, EnumSet.allOf(AlertEvent.class));
    }

    /** Whether {@code event} is sent somewhere. */
    public boolean alerts(AlertEvent event) {
        return alertEndpoint != null && alertEvents.contains(event);
    }
}
