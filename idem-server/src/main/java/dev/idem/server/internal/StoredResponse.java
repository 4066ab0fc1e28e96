package dev.idem.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A 2xx response as an {@code Idempotency-Key}'s record keeps it, to be replayed byte for byte: its extra headers as one
 * line of compact JSON, a newline, then the body's bytes exactly as first sent (compact JSON never contains a raw
 * newline, so the first one splits them).
 */
record StoredResponse(Map<String, String> headers, byte[] body) {
    /** {@code r}'s headers and body as sent. */
    static StoredResponse of(ApiResponse r) {
        return new StoredResponse(r.headers(), Json.bytes(r.body()));
    }

    byte[] encode() {
        byte[] h = Json.bytes(Json.MAPPER.valueToTree(new TreeMap<>(headers)));
        byte[] out = new byte[h.length + 1 + body.length];
        System.arraycopy(h, 0, out, 0, h.length);
        out[h.length] = '\n';
        System.arraycopy(body, 0, out, h.length + 1, body.length);
        return out;
    }

    static StoredResponse decode(byte[] stored) {
        int nl = 0;
        while (nl < stored.length && stored[nl] != '\n') nl++;
        Map<String, String> headers = new LinkedHashMap<>();
        Json.parseStored(new String(stored, 0, nl, StandardCharsets.UTF_8))
                .fields()
                .forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
        return new StoredResponse(headers, Arrays.copyOfRange(stored, Math.min(nl + 1, stored.length), stored.length));
    }
}
