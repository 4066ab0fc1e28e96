package dev.idem.client.model;

/**
 * A node's health: {@code GET /healthz} (process up) or {@code GET /readyz} (store reachable).
 *
 * @param status {@code ok}, {@code ready} or {@code store_unreachable}
 * @param store the store's dialect, for readiness
 * @param httpStatus 200, or 503 when the node is up but not ready
 */
public record Health(String status, String store, int httpStatus) {
    /** 200: up (health) or able to serve (readiness). */
    public boolean ok() {
        return httpStatus == 200;
    }
}
