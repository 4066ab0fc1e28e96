package dev.idem.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A response decided inside a transaction, so that it can be stored with the mutation for replay. A mutation that
 * makes a delivery due wakes the dispatchers itself, by {@link dev.idem.core.store.StoreTx#notifyDeliveriesDue()} in
 * that transaction (every node hears it once it commits), not through its response.
 *
 * @param headers extra response headers (replayed too)
 */
public record ApiResponse(int status, JsonNode body, Map<String, String> headers) {
    public ApiResponse {
        headers = Map.copyOf(headers);
    }

    static ApiResponse ok(JsonNode body) {
        return new ApiResponse(200, body, Map.of());
    }
}
