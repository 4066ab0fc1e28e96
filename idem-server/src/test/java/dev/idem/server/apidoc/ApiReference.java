package dev.idem.server.apidoc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders the server's {@code openapi.json} (the document {@code GET /openapi.json} serves) to one Markdown page, the
 * API reference. The build runs {@link #main} in idem-server's {@code process-test-classes} phase, so the page under
 * {@code target/api-reference/} is made from the same file the server serves; it is committed as
 * {@code docs/api-reference.md}, readable on the repository, and {@code ApiReferenceTest} fails while the committed
 * page differs from the rendered one, and when an operation, a response status, a schema or a schema field has no
 * entry.
 *
 * <p>Why a renderer of our own and not openapi-generator's {@code markdown} generator (tried, 7.25.0): that one
 * renders OpenAPI 3.1 offline but leaves out every operation's response statuses and every enum's values, which are
 * half of what a reference is read for, and brings a 7.6 MB plugin with its own dependency tree into each build.
 * This class needs only Jackson, which the server already has.
 */
public final class ApiReference {
    private static final List<String> METHODS = List.of("get", "post", "put", "patch", "delete");

    private final JsonNode spec;
    private final StringBuilder out = new StringBuilder();

    private ApiReference(JsonNode spec) {
        this.spec = spec;
    }

    /**
     * Writes {@code api-reference.md} into the output directory.
     *
     * @param args the path of openapi.json, then the output directory
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) throw new IllegalArgumentException("usage: ApiReference <openapi.json> <output dir>");
        JsonNode spec = new ObjectMapper().readTree(Path.of(args[0]).toFile());
        Path dir = Files.createDirectories(Path.of(args[1]));
        Files.writeString(dir.resolve("api-reference.md"), render(spec), StandardCharsets.UTF_8);
    }

    /** The whole reference page for this OpenAPI document. */
    public static String render(JsonNode spec) {
        ApiReference r = new ApiReference(spec);
        r.page();
        return r.out.toString();
    }

    /**
     * What the rendered page lacks: {@code "GET /v1/x"} for an operation without its heading, {@code "GET /v1/x 404"}
     * for a response status missing from its table, {@code "schema X"} and {@code "schema X.field"} for a schema or a
     * field without its entry. Empty when everything in the document has its entry.
     */
    public static List<String> missing(JsonNode spec, String page) {
        List<String> gaps = new ArrayList<>();
        spec.path("paths").fields().forEachRemaining(p -> {
            for (String m : METHODS) {
                JsonNode op = p.getValue().get(m);
                if (op == null) continue;
                String name = m.toUpperCase(Locale.ROOT) + " " + p.getKey();
                int at = page.indexOf(operationHeading(m, p.getKey()));
                if (at < 0) {
                    gaps.add(name);
                    continue;
                }
                int end = page.indexOf("\n### ", at + 1);
                String section = page.substring(at, end < 0 ? page.length() : end);
                op.path("responses").fieldNames().forEachRemaining(status -> {
                    if (!section.contains("\n| " + status + " |")) gaps.add(name + " " + status);
                });
            }
        });
        spec.path("components").path("schemas").fields().forEachRemaining(s -> {
            int at = page.indexOf(schemaHeading(s.getKey()));
            if (at < 0) {
                gaps.add("schema " + s.getKey());
                return;
            }
            int end = page.indexOf("\n### ", at + 1);
            String section = page.substring(at, end < 0 ? page.length() : end);
            s.getValue().path("properties").fieldNames().forEachRemaining(f -> {
                if (!section.contains("\n| `" + f + "` |")) gaps.add("schema " + s.getKey() + "." + f);
            });
        });
        return gaps;
    }

    static String operationHeading(String method, String path) {
        return "\n### `" + method.toUpperCase(Locale.ROOT) + " " + path + "`";
    }

    static String schemaHeading(String name) {
        return "\n### " + name + "\n";
    }

    private void page() {
        JsonNode info = spec.path("info");
        line("# " + info.path("title").asText("API") + " reference (version "
                + info.path("version").asText() + ")");
        line("");
        line("Generated from `idem-server/src/main/resources/openapi.json`, the document the server serves at "
                + "`GET /openapi.json` (OpenAPI " + spec.path("openapi").asText()
                + "), by `ApiReference` in idem-server's tests. Do not edit: change openapi.json, then "
                + "`mvn -pl idem-server process-test-classes` and copy "
                + "`idem-server/target/api-reference/api-reference.md` here; `ApiReferenceTest` fails the build "
                + "while this page differs from that document. How the API behaves and why: [api.md](api.md); "
                + "how the reference is made: DEVELOPERS.md.");
        line("");
        line(text(info.path("description")));
        line("");
        line("Authentication: `Authorization: Bearer sk_test_…|sk_live_…` unless an operation says \"no key\".");
        line("");
        line("## Operations");
        line("");
        line("| method and path | summary |");
        line("|---|---|");
        forEachOperation((m, path, op) -> line("| [`" + m.toUpperCase(Locale.ROOT) + " " + path + "`](#"
                + anchor(m + " " + path) + ") | " + cell(op.path("summary")) + " |"));
        line("");
        Map<String, List<String[]>> byTag = new LinkedHashMap<>();
        spec.path("tags").forEach(t -> byTag.put(t.path("name").asText(), new ArrayList<>()));
        forEachOperation(
                (m, path, op) -> byTag.computeIfAbsent(op.path("tags").path(0).asText("other"), k -> new ArrayList<>())
                        .add(new String[] {m, path}));
        byTag.forEach((tag, ops) -> {
            if (ops.isEmpty()) return;
            line("## " + Character.toUpperCase(tag.charAt(0)) + tag.substring(1));
            for (String[] o : ops)
                operation(o[0], o[1], spec.path("paths").path(o[1]).path(o[0]));
        });
        line("## Schemas");
        spec.path("components").path("schemas").fields().forEachRemaining(s -> schema(s.getKey(), s.getValue()));
    }

    private interface OperationVisitor {
        void visit(String method, String path, JsonNode op);
    }

    private void forEachOperation(OperationVisitor v) {
        spec.path("paths").fields().forEachRemaining(p -> {
            for (String m : METHODS)
                if (p.getValue().has(m)) v.visit(m, p.getKey(), p.getValue().get(m));
        });
    }

    private void operation(String method, String path, JsonNode op) {
        out.append(operationHeading(method, path)).append('\n');
        line("<a id=\"" + anchor(method + " " + path) + "\"></a>");
        line("");
        line("**" + text(op.path("summary")) + "**" + (isPublic(op) ? " (no key)" : "")
                + (op.has("operationId")
                        ? " · operationId `" + op.path("operationId").asText() + "`"
                        : ""));
        line("");
        if (op.has("description")) {
            line(text(op.path("description")));
            line("");
        }
        List<JsonNode> params = new ArrayList<>();
        spec.path("paths").path(path).path("parameters").forEach(p -> params.add(resolve(p)));
        op.path("parameters").forEach(p -> params.add(resolve(p)));
        if (!params.isEmpty()) {
            line("| parameter | in | type | required | description |");
            line("|---|---|---|---|---|");
            for (JsonNode p : params) {
                line("| `" + p.path("name").asText() + "` | " + p.path("in").asText() + " | " + type(p.path("schema"))
                        + " | " + (p.path("required").asBoolean() ? "yes" : "no") + " | "
                        + cell(p.path("description")) + constraints(p.path("schema")) + " |");
            }
            line("");
        }
        JsonNode body = resolve(op.path("requestBody"));
        if (!body.isMissingNode()) {
            List<String> kinds = new ArrayList<>();
            body.path("content")
                    .fields()
                    .forEachRemaining(c -> kinds.add(
                            "`" + c.getKey() + "` " + type(c.getValue().path("schema"))));
            line("Request body" + (body.path("required").asBoolean() ? " (required)" : "") + ": "
                    + String.join(", ", kinds)
                    + (body.has("description") ? ". " + text(body.path("description")) : ""));
            line("");
        }
        line("| status | meaning | body |");
        line("|---|---|---|");
        op.path("responses").fields().forEachRemaining(r -> {
            JsonNode resp = resolve(r.getValue());
            List<String> kinds = new ArrayList<>();
            resp.path("content")
                    .fields()
                    .forEachRemaining(c -> kinds.add(
                            "`" + c.getKey() + "` " + type(c.getValue().path("schema"))));
            line("| " + r.getKey() + " | " + cell(resp.path("description")) + " | " + String.join(", ", kinds) + " |");
        });
        line("");
    }

    private boolean isPublic(JsonNode op) {
        return op.has("security")
                && op.path("security").isArray()
                && op.path("security").isEmpty();
    }

    private void schema(String name, JsonNode s) {
        out.append(schemaHeading(name));
        line("<a id=\"" + anchor("schema " + name) + "\"></a>");
        line("");
        if (s.has("description")) {
            line(text(s.path("description")));
            line("");
        }
        if (!s.has("properties")) {
            line("Type: " + type(s) + constraints(s));
            line("");
            return;
        }
        Set<String> required = names(s.path("required"));
        line("| field | type | required | description |");
        line("|---|---|---|---|");
        fields("", s, required);
        line("");
    }

    /** One row per property; an inline object's own properties follow as {@code parent.child} rows. */
    private void fields(String prefix, JsonNode s, Set<String> required) {
        s.path("properties").fields().forEachRemaining(f -> {
            JsonNode fs = f.getValue();
            line("| `" + prefix + f.getKey() + "` | " + type(fs) + " | "
                    + (required.contains(f.getKey()) ? "yes" : "no") + " | " + cell(fs.path("description"))
                    + constraints(fs) + " |");
            if (fs.has("properties") && prefix.chars().filter(c -> c == '.').count() < 3) {
                fields(prefix + f.getKey() + ".", fs, names(fs.path("required")));
            }
        });
    }

    /** A short type: {@code string}, {@code integer or null}, {@code array of [Schedule](#…)}, {@code one of …}. */
    private String type(JsonNode s) {
        if (s == null || s.isMissingNode() || s.isNull()) return "";
        if (s.has("$ref")) {
            String ref = s.path("$ref").asText();
            String name = ref.substring(ref.lastIndexOf('/') + 1);
            return ref.startsWith("#/components/schemas/") ? "[" + name + "](#" + anchor("schema " + name) + ")" : name;
        }
        for (String combinator : List.of("oneOf", "anyOf")) {
            if (s.has(combinator)) {
                List<String> alts = new ArrayList<>();
                s.path(combinator).forEach(a -> alts.add(type(a)));
                return String.join(" or ", alts);
            }
        }
        if (s.has("allOf")) {
            List<String> parts = new ArrayList<>();
            s.path("allOf").forEach(a -> parts.add(type(a)));
            return String.join(" and ", parts);
        }
        if (s.has("const")) return "`" + s.path("const").toString().replace("|", "\\|") + "`";
        List<String> types = new ArrayList<>();
        JsonNode t = s.path("type");
        if (t.isArray()) t.forEach(x -> types.add(x.asText()));
        else if (t.isTextual()) types.add(t.asText());
        List<String> shown = new ArrayList<>();
        for (String x : types) {
            if (x.equals("array")) shown.add("array of " + (s.has("items") ? type(s.path("items")) : "any"));
            else if (x.equals("object") && s.path("additionalProperties").isObject() && !s.has("properties"))
                shown.add("map of " + type(s.path("additionalProperties")));
            else
                shown.add(x
                        + (s.has("format") && !x.equals("null")
                                ? " (" + s.path("format").asText() + ")"
                                : ""));
        }
        return shown.isEmpty() ? "any JSON" : String.join(" or ", shown);
    }

    /** Enum values, defaults and bounds, appended to a description cell. */
    private String constraints(JsonNode s) {
        if (s == null || s.isMissingNode()) return "";
        List<String> c = new ArrayList<>();
        if (s.has("enum")) {
            List<String> values = new ArrayList<>();
            s.path("enum").forEach(v -> values.add("`" + (v.isTextual() ? v.asText() : v.toString()) + "`"));
            c.add("One of " + String.join(", ", values) + ".");
        }
        if (s.has("default"))
            c.add("Default `"
                    + (s.path("default").isTextual()
                            ? s.path("default").asText()
                            : s.path("default").toString()) + "`.");
        bound(c, s, "minimum", "maximum", "");
        bound(c, s, "minLength", "maxLength", " characters");
        bound(c, s, "minItems", "maxItems", " items");
        if (s.has("pattern")) c.add("Pattern `" + s.path("pattern").asText().replace("|", "\\|") + "`.");
        return c.isEmpty() ? "" : (" " + String.join(" ", c)).replace("\n", " ");
    }

    private static void bound(List<String> c, JsonNode s, String min, String max, String unit) {
        if (s.has(min) && s.has(max))
            c.add(s.path(min).asText() + " to " + s.path(max).asText() + unit + ".");
        else if (s.has(min)) c.add("At least " + s.path(min).asText() + unit + ".");
        else if (s.has(max)) c.add("At most " + s.path(max).asText() + unit + ".");
    }

    private JsonNode resolve(JsonNode n) {
        for (int hops = 0; n.has("$ref") && hops < 5; hops++) {
            String ref = n.path("$ref").asText();
            if (!ref.startsWith("#/")) break;
            JsonNode target = spec;
            for (String part : ref.substring(2).split("/"))
                target = target.path(part.replace("~1", "/").replace("~0", "~"));
            n = target;
        }
        return n;
    }

    private static Set<String> names(JsonNode array) {
        Set<String> s = new HashSet<>();
        array.forEach(x -> s.add(x.asText()));
        return s;
    }

    /** A GitHub-style anchor made only of lower-case letters, digits and dashes, so every renderer keeps it. */
    static String anchor(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    private static String text(JsonNode n) {
        return n.isMissingNode() || n.isNull() ? "" : n.asText();
    }

    private static String cell(JsonNode n) {
        return text(n).replace("\r", " ").replace("\n", " ").replace("|", "\\|");
    }

    private void line(String s) {
        out.append(s).append('\n');
    }
}
