package dev.idem.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.client.internal.Json;
import java.nio.charset.StandardCharsets;

/**
 * A request body built field by field, in the order the fields are set: the fields of an application, an endpoint or
 * an event type, for a create or an update (which changes only the fields set). Idem validates them; this only shapes
 * the JSON. {@link #param} sets a field this client does not know yet.
 */
public abstract class JsonFields<B extends JsonFields<B>> {
    final ObjectNode body = Json.MAPPER.createObjectNode();

    JsonFields() {}

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Any field by its API name; {@code value} is turned into JSON ({@code null} becomes JSON null). */
    public B param(String name, Object value) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("a field name is required");
        body.set(name, value instanceof JsonNode n ? n : Json.MAPPER.valueToTree(value));
        return self();
    }

    /** Sends {@code name: null}: in an update, the field is cleared. */
    public B clear(String name) {
        return param(name, null);
    }

    /** Free JSON kept with the object (a map, a record, a {@link JsonNode}). */
    public B metadata(Object metadata) {
        return param("metadata", metadata);
    }

    /** The body's JSON text. */
    public String toJson() {
        return body.toString();
    }

    /** The body as UTF-8 bytes. */
    public byte[] bytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + body;
    }
}
