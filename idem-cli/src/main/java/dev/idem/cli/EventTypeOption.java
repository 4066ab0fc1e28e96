package dev.idem.cli;

import dev.idem.core.fanout.EventType;

/** A list command's {@code --event-type}, checked by the server's rule for event type names before any request. */
final class EventTypeOption {
    private EventTypeOption() {}

    /** {@code eventType} (null: not given) as given; exit 2, naming the option, when it is not an event type name. */
    static String checked(Connection conn, String eventType) {
        if (eventType != null)
            EventType.nameProblem(eventType).ifPresent(p -> {
                throw conn.usage("--event-type " + eventType + ": " + p);
            });
        return eventType;
    }
}
