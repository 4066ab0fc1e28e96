package dev.idem.client.model;

import dev.idem.client.internal.Query;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The query of {@code GET /v1/recurrence/preview}: a rule or a cron, and optionally its start, zone, exdates and count. */
public final class PreviewRequest {
    private final Map<String, String> params;

    private PreviewRequest(Map<String, String> params) {
        this.params = Map.copyOf(params);
    }

    public static Builder rrule(String rule) {
        return new Builder().put("rrule", rule);
    }

    public static Builder cron(String cron) {
        return new Builder().put("cron", cron);
    }

    public String query() {
        return Query.of(params);
    }

    public static final class Builder {
        private final Map<String, String> params = new LinkedHashMap<>();

        private Builder() {}

        private Builder put(String name, String value) {
            if (value == null || value.isBlank()) throw new IllegalArgumentException(name + " must not be empty");
            params.put(name, value);
            return this;
        }

        public Builder dtstart(LocalDateTime start) {
            return put("dtstart", start.toString());
        }

        public Builder timezone(ZoneId zone) {
            return put("timezone", zone.getId());
        }

        public Builder exdates(List<LocalDateTime> dates) {
            return put("exdates", dates.stream().map(LocalDateTime::toString).collect(Collectors.joining(",")));
        }

        /** How many occurrences, 1 to 1000 (default 10). */
        public Builder count(int count) {
            return put("count", Integer.toString(count));
        }

        public PreviewRequest build() {
            return new PreviewRequest(params);
        }
    }
}
