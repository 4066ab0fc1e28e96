package dev.idem.client.model;

/**
 * The body of {@code PATCH /v1/schedules/{id}}: only the fields set are changed; {@link Builder#clear} sets one back to
 * its default (JSON null). {@code retry} merges field by field and {@code headers} replaces the whole map (docs/api.md).
 */
public final class ScheduleUpdate {
    private final String json;

    private ScheduleUpdate(String json) {
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
        return "ScheduleUpdate" + json;
    }

    /** Sets fields; {@link #build()} writes the JSON. */
    public static final class Builder extends ScheduleFields<Builder> {
        private Builder() {}

        /** Sends {@code name: null}: the field goes back to its default. */
        public Builder clear(String name) {
            return param(name, null);
        }

        public ScheduleUpdate build() {
            if (body.isEmpty()) throw new IllegalArgumentException("an update needs at least one field");
            return new ScheduleUpdate(body.toString());
        }
    }
}
