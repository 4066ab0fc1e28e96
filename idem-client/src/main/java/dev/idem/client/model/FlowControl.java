package dev.idem.client.model;

/**
 * Shared limits for every schedule given the same {@code key} (per project and mode): at most {@code parallelism}
 * attempts in flight and {@code rate} attempts per second; either may be null (no such limit).
 */
public record FlowControl(String key, Integer parallelism, Number rate) {
    public FlowControl {
        if (key == null || key.isBlank()) throw new IllegalArgumentException("flow_control.key is required");
    }
}
