package dev.idem.server.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.idem.server.ApiClientForTests;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The server's {@code openapi.json} (the classpath resource it serves), read as a contract: which
 * operations exist, and what each response must look like. Response bodies are validated with a JSON
 * Schema 2020-12 validator in the OpenAPI 3.1 dialect, {@code $ref}s resolved inside the document.
 */
public final class OpenApiDocument {
    static final String BASE = "https://idem.invalid/openapi.json";
    static final List<String> METHODS = List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    /** Refuses a key given twice in one object: parsers keep one of them silently, so a merge can hide a path. */
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    public final byte[] bytes;
    public final JsonNode root;
    private final SchemaRegistry registry;
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
    private final Map<String, Pattern> templates = new LinkedHashMap<>();

    /** One documented operation. */
    public record Operation(String method, String template) {
        @Override
        public String toString() {
            return method.toUpperCase(Locale.ROOT) + " " + template;
        }
    }

    private OpenApiDocument(byte[] bytes) {
        this.bytes = bytes;
        try {
            this.root = JSON.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("openapi.json is not JSON", e);
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        this.registry = SchemaRegistry.withDefaultDialect(Dialects.getOpenApi31(), b -> b.schemas(Map.of(BASE, text)));
        for (Iterator<String> it = root.get("paths").fieldNames(); it.hasNext(); ) {
            String t = it.next();
            templates.put(t, Pattern.compile("^" + Pattern.quote(t).replaceAll("\\{[^}/]+}", "\\\\E[^/]+\\\\Q") + "$"));
        }
    }

    public static OpenApiDocument load() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream("/openapi.json")) {
            if (in == null)
                throw new IllegalStateException(
                        "openapi.json is not on the classpath (idem-server/src/main/resources)");
            return new OpenApiDocument(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every (method, path template) the document describes. */
    public List<Operation> operations() {
        List<Operation> out = new ArrayList<>();
        root.get("paths")
                .fields()
                .forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(m -> {
                    if (METHODS.contains(m)) out.add(new Operation(m, p.getKey()));
                }));
        return out;
    }

    /** The template a concrete path (no query) matches, if any. */
    public Optional<String> template(String path) {
        // concrete paths before templated ones, as OpenAPI says (POST /v1/deliveries/replay is not /v1/deliveries/{id})
        return templates.entrySet().stream()
                .filter(e -> e.getValue().matcher(path).matches())
                .map(Map.Entry::getKey)
                .min(java.util.Comparator.comparingLong(
                        t -> t.chars().filter(c -> c == '{').count()));
    }

    public JsonNode operation(Operation op) {
        JsonNode n = root.path("paths").path(op.template()).path(op.method());
        if (n.isMissingNode()) throw new AssertionError("openapi.json has no operation " + op);
        return n;
    }

    /** The response object for a status, with a {@code $ref} to components followed; its JSON pointer as well. */
    public record Response(String pointer, JsonNode node) {}

    public Optional<Response> response(Operation op, int status) {
        JsonNode responses = operation(op).path("responses");
        String pointer = "/paths/" + escape(op.template()) + "/" + op.method() + "/responses/" + status;
        JsonNode r = responses.get(Integer.toString(status));
        if (r == null) return Optional.empty();
        if (r.has("$ref")) {
            String ref = r.get("$ref").asText();
            if (!ref.startsWith("#/"))
                throw new AssertionError("only local $refs are expected in openapi.json: " + ref);
            pointer = ref.substring(1);
            r = root.at(pointer);
            if (r.isMissingNode()) throw new AssertionError("dangling $ref " + ref);
        }
        return Optional.of(new Response(pointer, r));
    }

    /** A header component, with its {@code $ref} followed. */
    public JsonNode header(JsonNode headerOrRef) {
        if (headerOrRef.has("$ref"))
            return root.at(headerOrRef.get("$ref").asText().substring(1));
        return headerOrRef;
    }

    /** Validation messages for {@code body} against the schema at JSON pointer {@code pointer} of this document (empty: valid). */
    public List<String> validate(String pointer, JsonNode body) {
        Schema schema = schemas.computeIfAbsent(pointer, p -> registry.getSchema(SchemaLocation.of(BASE + "#" + p)));
        List<String> out = new ArrayList<>();
        // the validator reads with Jackson 3; the API's bodies are Jackson 2 trees, handed over as text
        schema.validate(body.toString(), InputFormat.JSON).forEach(e -> out.add(e.toString()));
        return out;
    }

    /**
     * Everything wrong with one real reply for an operation: an undocumented status, a body that does not
     * match the documented schema, a missing required header or a present header the response does not
     * declare. Empty when the reply matches the document.
     */
    public List<String> check(Operation op, ApiClientForTests.Reply reply) {
        List<String> problems = new ArrayList<>();
        Optional<Response> documented = response(op, reply.status());
        if (documented.isEmpty()) {
            problems.add(op + " answered " + reply.status() + " which openapi.json does not list: " + reply.raw());
            return problems;
        }
        JsonNode response = documented.get().node();
        String contentType = reply.header("Content-Type");
        JsonNode content = response.path("content");
        if (content.has("application/json")) {
            if (contentType == null || !contentType.startsWith("application/json"))
                problems.add(op + " " + reply.status() + ": documented as application/json, served as " + contentType);
            if (reply.json() == null) {
                problems.add(op + " " + reply.status() + ": body is not JSON: " + reply.raw());
            } else {
                String pointer = documented.get().pointer() + "/content/application~1json/schema";
                for (String v : validate(pointer, reply.json()))
                    problems.add(op + " " + reply.status() + ": " + v + " in " + abbreviate(reply.raw()));
            }
        } else if (content.size() == 1) {
            // a text resource (metrics, the dashboard's files): the media type is what a client relies on
            String media = content.fieldNames().next();
            if (contentType == null || !contentType.startsWith(media))
                problems.add(op + " " + reply.status() + ": documented as " + media + ", served as " + contentType);
        } else {
            problems.add(op + " " + reply.status() + ": openapi.json gives no content for this response");
        }
        JsonNode headers = response.path("headers");
        headers.fields().forEachRemaining(h -> {
            JsonNode header = header(h.getValue());
            String value = reply.header(h.getKey());
            if (value == null) {
                if (header.path("required").asBoolean(false))
                    problems.add(op + " " + reply.status() + ": required header " + h.getKey() + " is missing");
                return;
            }
            String pointer =
                    h.getValue().has("$ref") ? h.getValue().get("$ref").asText().substring(1) : null;
            if (pointer != null)
                for (String v :
                        validate(pointer + "/schema", JSON.getNodeFactory().textNode(value)))
                    problems.add(op + " " + reply.status() + ": header " + h.getKey() + ": " + v);
        });
        for (String name : List.of("Request-Id", "Idempotent-Replayed", "Idem-Deduplicated", "Retry-After"))
            if (reply.header(name) != null && !hasHeader(headers, name))
                problems.add(op + " " + reply.status() + ": sent header " + name
                        + " which openapi.json does not declare for this response");
        return problems;
    }

    private static boolean hasHeader(JsonNode headers, String name) {
        for (Iterator<String> it = headers.fieldNames(); it.hasNext(); )
            if (it.next().equalsIgnoreCase(name)) return true;
        return false;
    }

    static String escape(String pointerToken) {
        return pointerToken.replace("~", "~0").replace("/", "~1");
    }

    private static String abbreviate(String s) {
        return s.length() <= 600 ? s : s.substring(0, 600) + "…";
    }
}
