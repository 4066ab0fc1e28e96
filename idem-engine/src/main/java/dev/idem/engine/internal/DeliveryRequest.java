package dev.idem.engine.internal;

import java.util.Map;

/** The bytes and headers of one attempt, before they meet the HTTP client. */
public record DeliveryRequest(String endpoint, Map<String, String> headers, byte[] body) {
    public DeliveryRequest {
        headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
    }
}
