package dev.idem.core.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An event type's JSON Schema, validated by networknt's json-schema-validator (a maintained implementation of every
 * draft from 4 to 2020-12; {@code $schema} picks one, 2020-12 by default). A schema is itself checked against its
 * draft's meta-schema when an event type is created, so a typo there is a 400 and not a surprise on the first send.
 *
 * <p>Nothing is ever fetched: the meta-schemas come from the library's jar, and a {@code $ref} must point inside the
 * schema ({@code #/$defs/…}): a remote one would make Idem fetch a URL its caller chose, on every node.
 */
public final class EventSchema {
    /** One way a document fails the schema: where ({@code data.items[0].sku}; empty for the whole document), and why. */
    public record Violation(String path, String message) {}

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12, b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
    private static final Map<String, SpecificationVersion> DRAFTS = Map.of(
            "https://json-schema.org/draft/2020-12/schema", SpecificationVersion.DRAFT_2020_12,
            "https://json-schema.org/draft/2019-09/schema", SpecificationVersion.DRAFT_2019_09,
            "http://json-schema.org/draft-07/schema", SpecificationVersion.DRAFT_7,
            "http://json-schema.org/draft-06/schema", SpecificationVersion.DRAFT_6,
            "http://json-schema.org/draft-04/schema", SpecificationVersion.DRAFT_4);

    private final String json;
    private volatile Schema compiled;

    private EventSchema(String json, Schema compiled) {
        this.json = json;
        this.compiled = compiled;
    }

    /**
     * A schema given by a caller, checked: an object, of a known draft, valid against that draft's meta-schema, with
     * local {@code $ref}s only.
     *
     * @throws InvalidJsonException naming the path inside the schema that is wrong
     */
    public static EventSchema parse(JsonNode schema) {
        if (!schema.isObject()) throw new InvalidJsonException("", "a schema must be a JSON object");
        String text = schema.toString();
        String draft = draftOf(schema);
        remoteRef(schema, "").ifPresent(at -> {
            throw new InvalidJsonException(
                    at, "only local references (starting with #) are allowed; Idem fetches nothing");
        });
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(draft));
        List<Error> errors = meta.validate(text, InputFormat.JSON);
        if (!errors.isEmpty()) {
            Violation v = violation(errors.get(0));
            throw new InvalidJsonException(v.path(), v.message());
        }
        try {
            Schema compiled = REGISTRY.getSchema(text, InputFormat.JSON);
            compiled.validate("null", InputFormat.JSON); // builds what the library builds lazily, once
            return new EventSchema(text, compiled);
        } catch (RuntimeException e) {
            throw new InvalidJsonException("", "the schema cannot be used: " + e.getMessage());
        }
    }

    /** A schema read back from the store, checked when it was stored; compiled on first use. */
    public static EventSchema stored(String json) {
        return new EventSchema(json, null);
    }

    /** Up to {@code max} ways {@code documentJson} (JSON text) fails this schema; empty when it conforms. */
    public List<Violation> violations(String documentJson, int max) {
        List<Violation> out = new ArrayList<>();
        for (Error e : schema().validate(documentJson, InputFormat.JSON)) {
            if (out.size() >= max) break;
            out.add(violation(e));
        }
        return out;
    }

    /** The schema as compact JSON text. */
    public String json() {
        return json;
    }

    private Schema schema() {
        Schema s = compiled;
        if (s == null) compiled = s = REGISTRY.getSchema(json, InputFormat.JSON);
        return s;
    }

    private static String draftOf(JsonNode schema) {
        JsonNode declared = schema.get("$schema");
        if (declared == null) return SpecificationVersion.DRAFT_2020_12.getDialectId();
        String id = declared.isTextual() ? declared.asText().replaceFirst("#$", "") : "";
        SpecificationVersion v = DRAFTS.get(id);
        if (v == null)
            throw new InvalidJsonException(
                    "$schema",
                    "unknown draft; use one of " + String.join(", ", DRAFTS.keySet())
                            + " (or leave it out for 2020-12)");
        return v.getDialectId();
    }

    /** The path of the first {@code $ref} or {@code $dynamicRef} that points outside the schema. */
    private static Optional<String> remoteRef(JsonNode n, String path) {
        if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String at = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                boolean ref = e.getKey().equals("$ref") || e.getKey().equals("$dynamicRef");
                if (ref && e.getValue().isTextual() && !e.getValue().asText().startsWith("#")) return Optional.of(at);
                Optional<String> inner = remoteRef(e.getValue(), at);
                if (inner.isPresent()) return inner;
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                Optional<String> inner = remoteRef(n.get(i), path + "[" + i + "]");
                if (inner.isPresent()) return inner;
            }
        }
        return Optional.empty();
    }

    private static Violation violation(Error e) {
        return new Violation(path(e.getInstanceLocation()), e.getMessage());
    }

    /** {@code data.items[0].sku}: the API's way of naming a place in a JSON document. */
    static String path(NodePath p) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < p.getNameCount(); i++) {
            Object element = p.getElement(i);
            if (element instanceof Integer index) out.append('[').append(index).append(']');
            else out.append(out.isEmpty() ? "" : ".").append(element);
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EventSchema s && s.json.equals(json);
    }

    @Override
    public int hashCode() {
        return json.hashCode();
    }

    @Override
    public String toString() {
        return "EventSchema" + json;
    }
}
