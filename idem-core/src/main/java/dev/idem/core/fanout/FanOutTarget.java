package dev.idem.core.fanout;

import java.util.Objects;
import java.util.Optional;

/**
 * Where a scheduled fan-out's occurrences go instead of a URL: every endpoint subscribed to {@code eventType} (of
 * {@code applicationId} when one is named) at the time each occurrence fires.
 *
 * <p>A schedule keeps its target in its definition's endpoint, as {@code idem:fanout?event_type=E[&application=A]}
 * ({@link #uri()}): no URL starts with {@code idem:}, the schedule's own rows never reach the engine's sender (each
 * occurrence becomes a message, {@link ScheduledFanOut}), and schedules keep one definition shape on every store.
 *
 * @param applicationId the application's id (never its uid), or null for every endpoint of the project
 */
public record FanOutTarget(String eventType, String applicationId) {
    private static final String PREFIX = "idem:fanout?event_type=";
    private static final String APPLICATION = "&application=";

    public FanOutTarget {
        Objects.requireNonNull(eventType, "eventType");
        EventType.nameProblem(eventType).ifPresent(p -> {
            throw new IllegalArgumentException("event_type: " + p);
        });
        if (applicationId != null && !applicationId.startsWith(Application.ID_PREFIX))
            throw new IllegalArgumentException("a target names its application by id (app_…)");
    }

    /** The form a schedule definition's endpoint keeps it in. */
    public String uri() {
        return PREFIX + eventType + (applicationId == null ? "" : APPLICATION + applicationId);
    }

    /** The target a definition's endpoint holds, or empty for a URL. */
    public static Optional<FanOutTarget> of(String endpoint) {
        if (endpoint == null || !endpoint.startsWith(PREFIX)) return Optional.empty();
        String rest = endpoint.substring(PREFIX.length());
        int app = rest.indexOf(APPLICATION);
        return Optional.of(
                app < 0
                        ? new FanOutTarget(rest, null)
                        : new FanOutTarget(rest.substring(0, app), rest.substring(app + APPLICATION.length())));
    }
}
