package dev.idem.client.model;

import java.time.Instant;

/**
 * Live counters of the key's project and mode over the last {@code windowSeconds} ({@code GET /v1/stats}; docs/api.md
 * says how each is computed).
 */
public record Stats(
        Instant asOf,
        Long windowSeconds,
        Double deliveriesPerSecond,
        Long succeeded,
        Long died,
        Long retrying,
        Long dead,
        Long lagMs,
        Instant oldestDueAt) {}
