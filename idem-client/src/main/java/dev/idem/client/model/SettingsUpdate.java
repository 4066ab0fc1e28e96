package dev.idem.client.model;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.client.internal.Json;
import java.util.Collection;
import java.util.List;

/** The body of {@code PATCH /v1/settings}: only the fields set are changed. */
public final class SettingsUpdate {
    private final String json;

    private SettingsUpdate(String json) {
        this.json = json;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String toJson() {
        return json;
    }

    @Override
    public String toString() {
        return "SettingsUpdate" + json;
    }

    /** Sets fields; {@link #build()} writes the JSON. */
    public static final class Builder {
        private final ObjectNode body = Json.MAPPER.createObjectNode();

        private Builder() {}

        /** Where alerts go: an http(s) URL the server checks as it checks a schedule's endpoint. */
        public Builder alertEndpoint(String url) {
            body.put("alert_endpoint", java.util.Objects.requireNonNull(url, "url; use alertsOff() to clear it"));
            return this;
        }

        /** Sends {@code "alert_endpoint": null}: no alerts at all. */
        public Builder alertsOff() {
            body.putNull("alert_endpoint");
            return this;
        }

        /** The events that raise an alert ({@link Settings#DELIVERY_DEAD}, {@link Settings#SCHEDULE_AUTO_PAUSED}); none for none. */
        public Builder alertEvents(String... events) {
            return alertEvents(List.of(events));
        }

        public Builder alertEvents(Collection<String> events) {
            ArrayNode a = body.putArray("alert_events");
            events.forEach(a::add);
            return this;
        }

        public SettingsUpdate build() {
            if (body.isEmpty()) throw new IllegalArgumentException("an update needs at least one field");
            return new SettingsUpdate(body.toString());
        }
    }
}
