package dev.idem.server.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.wire.Rfc3339;
import java.io.IOException;
import java.time.Instant;

/** The one JSON mapper of the API: strict on input (duplicate keys, trailing tokens), compact on output. */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private Json() {}

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Parses a request body that must be a JSON object; 400 {@code invalid_json} otherwise. */
    public static ObjectNode parseObject(byte[] body) {
        if (body.length == 0) return object();
        JsonNode node;
        try (JsonParser p = MAPPER.createParser(body)) {
            node = MAPPER.readTree(p);
            if (p.nextToken() != null)
                throw ApiException.invalid("invalid_json", null, "Request body has data after the JSON value");
        } catch (JsonProcessingException e) {
            throw ApiException.invalid(
                    "invalid_json", null, "Request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ApiException.invalid("invalid_json", null, "Request body could not be read");
        }
        if (node == null || node.isMissingNode()) return object();
        if (!node.isObject()) throw ApiException.invalid("invalid_json", null, "Request body must be a JSON object");
        return (ObjectNode) node;
    }

    public static byte[] bytes(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise a JSON tree", e);
        }
    }

    public static String compact(JsonNode node) {
        return new String(bytes(node), java.nio.charset.StandardCharsets.UTF_8);
    }

    public static JsonNode parseStored(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON is corrupt", e);
        }
    }

    public static String time(Instant instant) {
        return instant == null ? null : Rfc3339.format(instant);
    }
}
