package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A response decided inside a transaction, so that it can be stored with the mutation for replay.
 *
 * @param headers extra response headers (replayed too)
 * @param wakeEngine whether a delivery may be due now once this commits
 */
public record ApiResponse(int status, JsonNode body, Map<String, String> headers, boolean wakeEngine) {
    public ApiResponse {
        headers = Map.copyOf(headers);
    }

    static ApiResponse ok(JsonNode body) {
        return new ApiResponse(200, body, Map.of(), false);
    }

    ApiResponse waking() {
        return new ApiResponse(status, body, headers, true);
    }
}
