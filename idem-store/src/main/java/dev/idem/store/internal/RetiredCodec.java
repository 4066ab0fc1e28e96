package dev.idem.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.idem.core.SecretRotation.Retired;
import dev.idem.core.store.StoreException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The rotated-out secrets of a row as one JSON array, {@code [{"secret": …, "expires_at": <epoch ms>}]}, newest first,
 * sealed whole in one column: a rotation changes the current and the retired secrets in one row update.
 */
final class RetiredCodec {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RetiredCodec() {}

    /** Null for none. */
    static String encode(List<Retired<String>> retired) {
        if (retired.isEmpty()) return null;
        ArrayNode a = JSON.createArrayNode();
        for (Retired<String> r : retired)
            a.addObject()
                    .put("secret", r.secret())
                    .put("expires_at", r.expiresAt().toEpochMilli());
        return a.toString();
    }

    static List<Retired<String>> decode(String json, String where) {
        if (json == null) return List.of();
        try {
            JsonNode a = JSON.readTree(json);
            List<Retired<String>> out = new ArrayList<>(a.size());
            for (JsonNode r : a)
                out.add(new Retired<>(
                        r.get("secret").asText(),
                        Instant.ofEpochMilli(r.get("expires_at").asLong())));
            return List.copyOf(out);
        } catch (IOException | RuntimeException e) {
            // never the text: it holds secrets
            throw new StoreException("the rotated-out secrets in " + where + " are not a JSON list", null, false);
        }
    }
}
