package dev.idem.client.model;

import dev.idem.client.internal.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a portal link grants: {@code PortalAccessRequest.defaults()} (7 days; view, manage endpoints, replay) narrowed
 * or widened by its methods. The server checks every value (a 400 names the field).
 */
public final class PortalAccessRequest {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private PortalAccessRequest() {}

    /** The server's defaults: 7 days, {@code view}, {@code manage_endpoints} and {@code replay}, no label. */
    public static PortalAccessRequest defaults() {
        return new PortalAccessRequest();
    }

    /** How long the link may be used: {@code 1h} to {@code 7d} (e.g. {@code "24h"}). */
    public PortalAccessRequest expiry(String duration) {
        fields.put("expiry", duration);
        return this;
    }

    /**
     * Any of {@code view}, {@code manage_endpoints}, {@code view_secrets}, {@code rotate_secrets}, {@code replay},
     * {@code send_test}; in place of the defaults.
     */
    public PortalAccessRequest capabilities(String... capabilities) {
        fields.put("capabilities", List.of(capabilities));
        return this;
    }

    /** A label (e.g. your user's id) to revoke this link by, alone. */
    public PortalAccessRequest session(String label) {
        fields.put("session", label);
        return this;
    }

    /** The request body. */
    public byte[] bytes() {
        try {
            return Json.MAPPER.writeValueAsBytes(fields);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("strings and lists always write as JSON", e);
        }
    }
}
