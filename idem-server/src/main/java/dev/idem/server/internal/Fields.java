package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.core.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;

/** Typed, validating access to a JSON object's fields; every error names the parameter to fix. */
final class Fields {
    private final ObjectNode node;
    private final String prefix;

    Fields(ObjectNode node, String prefix) {
        this.node = node;
        this.prefix = prefix;
    }

    static Fields of(ObjectNode node) {
        return new Fields(node, "");
    }

    String name(String field) {
        return prefix + field;
    }

    /** Refuses any field not in {@code allowed}. */
    Fields only(Set<String> allowed) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f))
                throw ApiException.invalid("parameter_unknown", name(f), "Received unknown parameter: " + name(f));
        }
        return this;
    }

    boolean has(String field) {
        JsonNode n = node.get(field);
        return n != null && !n.isNull();
    }

    JsonNode raw(String field) {
        return node.get(field);
    }

    String string(String field, int maxLength) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) return null;
        if (!n.isTextual())
            throw ApiException.invalid("parameter_invalid_type", name(field), name(field) + " must be a string");
        String s = n.asText();
        if (s.isEmpty())
            throw ApiException.invalid("parameter_invalid_empty", name(field), name(field) + " must not be empty");
        if (s.length() > maxLength)
            throw ApiException.invalid(
                    "parameter_too_long", name(field), name(field) + " must be at most " + maxLength + " characters");
        return s;
    }

    String requiredString(String field, int maxLength) {
        String s = string(field, maxLength);
        if (s == null)
            throw ApiException.invalid("parameter_missing", name(field), "Missing required parameter: " + name(field));
        return s;
    }

    Integer integer(String field, int min, int max) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) return null;
        if (!n.isIntegralNumber() || !n.canConvertToInt())
            throw ApiException.invalid("parameter_invalid_type", name(field), name(field) + " must be an integer");
        int v = n.intValue();
        if (v < min || v > max)
            throw ApiException.invalid(
                    "parameter_out_of_range", name(field), name(field) + " must be between " + min + " and " + max);
        return v;
    }

    Boolean bool(String field) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) return null;
        if (!n.isBoolean())
            throw ApiException.invalid("parameter_invalid_type", name(field), name(field) + " must be true or false");
        return n.booleanValue();
    }

    /** Whether {@code field} is given as JSON {@code null}: in a PATCH, clear it. */
    boolean isNull(String field) {
        JsonNode n = node.get(field);
        return n != null && n.isNull();
    }

    Duration duration(String field, Duration min, Duration max) {
        String s = string(field, 64);
        if (s == null) return null;
        Duration d;
        try {
            d = Durations.parse(s);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("parameter_invalid_duration", name(field), name(field) + ": " + e.getMessage());
        } catch (ArithmeticException e) {
            throw ApiException.invalid("parameter_invalid_duration", name(field), name(field) + " is too large");
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0)
            throw ApiException.invalid(
                    "parameter_out_of_range",
                    name(field),
                    name(field) + " must be between " + Durations.format(min) + " and " + Durations.format(max));
        return d;
    }

    Instant instant(String field) {
        String s = string(field, 64);
        if (s == null) return null;
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiException.invalid(
                    "parameter_invalid_time",
                    name(field),
                    name(field) + " must be an RFC 3339 instant with an offset, e.g. 2026-03-10T17:00:00Z");
        }
    }

    Fields object(String field) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) return null;
        if (!n.isObject())
            throw ApiException.invalid("parameter_invalid_type", name(field), name(field) + " must be an object");
        return new Fields((ObjectNode) n, name(field) + ".");
    }

    ObjectNode node() {
        return node;
    }
}
