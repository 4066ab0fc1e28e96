package dev.idem.core.fanout;

import dev.idem.core.Tenant;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A kind of message a project sends ({@code invoice.paid}), named uniquely in its tenant. Messages may use names
 * that have no event type; when one exists and has a {@link #schema()}, payloads of that type must conform.
 *
 * @param schema null when payloads are not checked
 * @param exampleJson an example payload (JSON text) for people and the portal, or null; valid against the schema
 * @param deprecated a label for people: a deprecated type still sends
 */
public record EventType(
        Tenant tenant,
        String name,
        String description,
        EventSchema schema,
        String exampleJson,
        boolean deprecated,
        Instant createdAt,
        Instant updatedAt) {
    /** Longest name. */
    public static final int MAX_NAME_LENGTH = 255;

    /** Dot-separated parts of letters, digits, {@code _ - :}; so a name fits in a URL path and {@code prefix.*} reads. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_:-]+(\\.[A-Za-z0-9_:-]+)*");

    public EventType {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }

    /** Why {@code name} is not an event type name, or empty when it is one. */
    public static Optional<String> nameProblem(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH)
            return Optional.of("an event type name has 1 to " + MAX_NAME_LENGTH + " characters");
        if (!NAME.matcher(name).matches())
            return Optional.of("an event type name is parts of letters, digits, '_', '-' and ':' joined by dots,"
                    + " such as invoice.paid");
        return Optional.empty();
    }

    /** This event type with every field but the identity and the creation time replaced. */
    public EventType with(String description, EventSchema schema, String exampleJson, boolean deprecated, Instant now) {
        return new EventType(tenant, name, description, schema, exampleJson, deprecated, createdAt, now);
    }
}
