package dev.idem.client.model;

import java.time.Instant;

/**
 * Live counters of the key's project and mode over the last {@code windowSeconds} ({@code GET /v1/stats}; docs/api.md
 * says how each is computed). {@code retrying}, {@code dead} and {@code queueDepth} are counted up to 10,000 so the read
 * costs the same with any amount of history; the matching {@code ...Capped} flag is true when there are more.
 */
public record Stats(
        Instant asOf,
        Long windowSeconds,
        Double deliveriesPerSecond,
        Long succeeded,
        Long died,
        Long retrying,
        Boolean retryingCapped,
        Long dead,
        Boolean deadCapped,
        Long queueDepth,
        Boolean queueDepthCapped,
        Long lagMs,
        Instant oldestDueAt) {}
