package dev.idem.client.model;

/** The body of {@code POST /v1/event-types} ({@link #create}) or {@code PATCH /v1/event-types/{name}} ({@link #update}). */
public final class EventTypeFields extends JsonFields<EventTypeFields> {
    private EventTypeFields() {}

    /** A new event type named {@code name} ({@code invoice.paid}). */
    public static EventTypeFields create(String name) {
        return new EventTypeFields().param("name", name);
    }

    /** An update: only the fields set change; {@link #clear} clears {@code description}, {@code schema}, {@code example}. */
    public static EventTypeFields update() {
        return new EventTypeFields();
    }

    public EventTypeFields description(String description) {
        return param("description", description);
    }

    /** A JSON Schema (a map or a {@code JsonNode}) every payload of this type must conform to. */
    public EventTypeFields schema(Object schema) {
        return param("schema", schema);
    }

    /** An example payload; it must conform to the schema. */
    public EventTypeFields example(Object example) {
        return param("example", example);
    }

    public EventTypeFields deprecated(boolean deprecated) {
        return param("deprecated", deprecated);
    }
}
