package dev.idem.core;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * An operational event Idem can tell a project about by sending a signed delivery to its {@code alert_endpoint}
 * (docs/alerts.md). The wire name is the delivery's {@code Idem-Event-Type} and the body's {@code type}.
 */
public enum AlertEvent {
    /** A delivery used up its retries (or its replay failed) and is now {@code dead}. */
    DELIVERY_DEAD("delivery.dead"),
    /** A schedule reached its {@code auto_pause_after} consecutive failed attempts and paused itself. */
    SCHEDULE_AUTO_PAUSED("schedule.auto_paused"),
    /** An endpoint's every attempt failed for the project's {@code disable_after}, and it was disabled. */
    ENDPOINT_DISABLED("endpoint.disabled");

    private final String wireName;

    AlertEvent(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The event of a wire name; {@link IllegalArgumentException} naming the accepted ones otherwise. */
    public static AlertEvent parse(String wireName) {
        for (AlertEvent e : values()) if (e.wireName.equals(wireName)) return e;
        throw new IllegalArgumentException("unknown alert event '" + wireName + "'; expected one of " + names());
    }

    /** The accepted wire names, comma-separated, for messages. */
    public static String names() {
        return Arrays.stream(values()).map(AlertEvent::wireName).collect(Collectors.joining(", "));
    }
}
