package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.idem.core.Utf8;
import java.io.IOException;

/**
 * Reads an API request body, once, into a tree:
 * <ul>
 *   <li>strict JSON: UTF-8 only (RFC 8259 section 8.1), one object, no duplicate keys, nothing after it;</li>
 *   <li>every string and key storable as text on every store: no U+0000 (PostgreSQL text cannot hold it) and no
 *       unpaired UTF-16 surrogate ({@code "\ud800"} has no UTF-8 form; drivers would store a '?'), else 400
 *       {@code parameter_invalid_characters} naming the field;</li>
 *   <li>the value of every {@code payload} key kept as the exact text the caller sent (a {@link RawValue} node,
 *       serialised verbatim), so {@code 1.0}, {@code 100.0}, big integers, key order, whitespace and
 *       {@code \u00e9} escapes reach the receiver as they were written. Its parsed form is checked and dropped.</li>
 * </ul>
 */
final class JsonBody {
    private static final JsonNodeFactory NODES = Json.MAPPER.getNodeFactory();
    static final String PAYLOAD = "payload";

    private JsonBody() {}

    static ObjectNode parse(byte[] body) {
        if (body.length == 0) return Json.object();
        String text = utf8(body);
        if (text.startsWith("\uFEFF")) text = text.substring(1); // RFC 8259: a parser may ignore a byte order mark
        try (JsonParser p = Json.MAPPER.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) return Json.object();
            if (first != JsonToken.START_OBJECT) {
                Json.MAPPER.readTree(p); // a syntax error in the value is reported as such
                throw ApiException.invalid("invalid_json", null, "Request body must be a JSON object");
            }
            ObjectNode root = (ObjectNode) read(p, text, "", false);
            if (p.nextToken() != null)
                throw ApiException.invalid("invalid_json", null, "Request body has data after the JSON value");
            return root;
        } catch (JsonProcessingException e) {
            throw ApiException.invalid(
                    "invalid_json", null, "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiException.invalid("invalid_json", null, "Request body could not be read");
        }
    }

    /** The JSON text of a {@code payload} value: exactly as the caller sent it when it came from {@link #parse}. */
    static String text(JsonNode value) {
        if (value instanceof POJONode pojo
                && pojo.getPojo() instanceof RawValue raw
                && raw.rawValue() instanceof String s) return s;
        return Json.compact(value);
    }

    /** A node that serialises as {@code jsonText} verbatim (a stored payload laid back into a tree). */
    static JsonNode verbatim(String jsonText) {
        return NODES.rawValueNode(new RawValue(jsonText));
    }

    private static String utf8(byte[] body) {
        String text = Utf8.decodeOrNull(body);
        if (text == null)
            throw ApiException.invalid(
                    "invalid_json", null, "Request body is not valid UTF-8 (JSON must be sent as UTF-8)");
        return text;
    }

    /** Reads the value at the current token; {@code path} names it in errors ({@code retry.max_age}, {@code exdates[2]}). */
    private static JsonNode read(JsonParser p, String text, String path, boolean insidePayload) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    String child = path.isEmpty() ? name : path + "." + name;
                    StorableText.check(name, child);
                    p.nextToken();
                    int from = (int) p.currentTokenLocation().getCharOffset();
                    boolean payload =
                            !insidePayload && name.equals(PAYLOAD) && p.currentToken() != JsonToken.VALUE_NULL;
                    JsonNode v = read(p, text, child, insidePayload || payload);
                    o.set(
                            name,
                            payload
                                    ? verbatim(text.substring(
                                            from, (int) p.currentLocation().getCharOffset()))
                                    : v);
                }
                return o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY)
                    a.add(read(p, text, path + "[" + i++ + "]", insidePayload));
                return a;
            }
            case VALUE_STRING -> {
                String s = p.getText(); // also moves the location past the closing quote
                StorableText.check(s, path);
                return NODES.textNode(s);
            }
            case VALUE_NUMBER_INT -> {
                return switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return NODES.numberNode(p.getDecimalValue());
            }
            case VALUE_TRUE -> {
                return NODES.booleanNode(true);
            }
            case VALUE_FALSE -> {
                return NODES.booleanNode(false);
            }
            case VALUE_NULL -> {
                return NODES.nullNode();
            }
            default ->
                throw ApiException.invalid(
                        "invalid_json", path.isEmpty() ? null : path, "Request body is not valid JSON at " + path);
        }
    }
}
