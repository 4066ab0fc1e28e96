package dev.idem.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link Engine} runs. Immutable and validated once, when built: an invalid value throws
 * {@link IllegalArgumentException} naming the field and the accepted range. Start from
 * {@link #defaults(String)} and change fields with the {@code with…} copies.
 *
 * @param nodeId this node's name; it owns the leases it claims, so it must be unique among live nodes
 * @param batchSize deliveries claimed per claim transaction (1–1000)
 * @param maxInFlight deliveries this node holds at once (1–1,000,000): attempts on the wire, waiting for their
 *     destination, or whose outcome is being written; {@code --max-in-flight}
 * @param lease how long a claim is held before another node may reclaim it; longer than
 *     {@code maxRequestTimeout}, so a live node's request always finishes inside its lease
 * @param maxRequestTimeout the ceiling on a schedule's per-attempt timeout (at most 60 s, the SPEC's limit)
 * @param materialiserHorizon how far ahead occurrences become delivery rows; at least twice {@code pollInterval}
 * @param pollInterval the longest the dispatcher and materialiser sleep without a wake-up: it bounds the lag of a
 *     delivery written by another node that did not signal this one
 * @param reaperInterval how often expired leases are returned to the queue
 * @param retention how long finished deliveries and their attempts are kept (default 30 days)
 * @param shutdownGrace how long {@link Engine#close()} lets in-flight requests finish before releasing their leases
 * @param allowPrivateEndpoints deliver to loopback, private, link-local and metadata addresses (tests, local development)
 * @param livenessInterval how often the node renews its liveness record (on the store's clock)
 * @param takeoverWindow how long a node's record may go unrenewed before a live node declares it dead and takes over its
 *     claims; a node that has not renewed for half of it starts no attempts until it renews again
 */
public record EngineConfig(
        String nodeId,
        int batchSize,
        int maxInFlight,
        Duration lease,
        Duration maxRequestTimeout,
        Duration materialiserHorizon,
        Duration pollInterval,
        Duration reaperInterval,
        Duration retention,
        Duration shutdownGrace,
        boolean allowPrivateEndpoints,
        Duration livenessInterval,
        Duration takeoverWindow) {

    /** The SPEC's ceiling on a per-attempt timeout. */
    public static final Duration SPEC_MAX_TIMEOUT = Duration.ofSeconds(60);
    /** The shortest retention: a delivery stays readable (and replayable) at least this long after it finished. */
    /**
     * Deliveries per claim. A claim's cost is mostly its round trip and commit: with claims taking 100 ms on a loaded
     * machine, batches of 100 capped a node near 1,000 deliveries/s; 500 doubled a burst's rate in the same conditions
     * (idem-bench, 2026-11-26). A destination's free slots still bound what one claim takes of it.
     */
    public static final int DEFAULT_BATCH = 500;
    /** The SPEC's default for {@code --max-in-flight}. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;
    public static final int MAX_IN_FLIGHT_LIMIT = 1_000_000;
    public static final Duration MIN_RETENTION = Duration.ofHours(1);

    public EngineConfig {
        Objects.requireNonNull(nodeId, "nodeId");
        if (nodeId.isBlank() || nodeId.length() > 200) throw new IllegalArgumentException("nodeId must be 1 to 200 characters, got '" + nodeId + "'");
        if (batchSize < 1 || batchSize > 1000) throw new IllegalArgumentException("batchSize must be between 1 and 1000, got " + batchSize);
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT_LIMIT)
            throw new IllegalArgumentException("maxInFlight must be between 1 and " + MAX_IN_FLIGHT_LIMIT + ", got " + maxInFlight);
        positive("maxRequestTimeout", maxRequestTimeout);
        if (maxRequestTimeout.compareTo(SPEC_MAX_TIMEOUT) > 0)
            throw new IllegalArgumentException("maxRequestTimeout must be at most 60s, got " + maxRequestTimeout);
        positive("lease", lease);
        if (lease.compareTo(maxRequestTimeout) <= 0)
            throw new IllegalArgumentException("lease (" + lease + ") must be longer than maxRequestTimeout (" + maxRequestTimeout
                    + "), or a slow but live request would be reclaimed by another node and sent twice at once");
        positive("pollInterval", pollInterval);
        if (pollInterval.toMillis() < 10) throw new IllegalArgumentException("pollInterval must be at least 10ms, got " + pollInterval);
        positive("materialiserHorizon", materialiserHorizon);
        if (materialiserHorizon.compareTo(pollInterval.multipliedBy(2)) < 0)
            throw new IllegalArgumentException("materialiserHorizon (" + materialiserHorizon + ") must be at least twice pollInterval ("
                    + pollInterval + ") so occurrences are written before they are due");
        positive("reaperInterval", reaperInterval);
        positive("retention", retention);
        if (retention.compareTo(MIN_RETENTION) < 0) throw new IllegalArgumentException("retention must be at least 1h, got " + retention);
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        if (shutdownGrace.isNegative()) throw new IllegalArgumentException("shutdownGrace must not be negative, got " + shutdownGrace);
        positive("livenessInterval", livenessInterval);
        if (livenessInterval.toMillis() < 50) throw new IllegalArgumentException("livenessInterval must be at least 50ms, got " + livenessInterval);
        positive("takeoverWindow", takeoverWindow);
        if (takeoverWindow.compareTo(livenessInterval.multipliedBy(4)) < 0)
            throw new IllegalArgumentException("takeoverWindow (" + takeoverWindow + ") must be at least four times livenessInterval ("
                    + livenessInterval + "), or one slow renewal would get a live node declared dead");
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
    }

    /**
     * Production defaults: batches of 500, 10,000 deliveries in flight, 90 s leases, 60 s request ceiling, a 60 s
     * materialiser horizon (100,000 cron schedules sharing an instant are written in 6–19 s on a loaded 2-core
     * machine; idem-engine/README.md, "Materialising in sets"), 500 ms poll, reaper every 5 s, 30 days retention,
     * 10 s shutdown grace, private endpoints refused, liveness renewed every 2 s with a 10 s takeover window (SPEC
     * section 4: a dead node's claims are taken over within 15 s; see the engine README for what the figures add up to).
     */
    public static EngineConfig defaults(String nodeId) {
        return new EngineConfig(nodeId, DEFAULT_BATCH, DEFAULT_MAX_IN_FLIGHT, Duration.ofSeconds(90), SPEC_MAX_TIMEOUT, Duration.ofSeconds(60),
                Duration.ofMillis(500), Duration.ofSeconds(5), Duration.ofDays(30), Duration.ofSeconds(10), false,
                Duration.ofSeconds(2), Duration.ofSeconds(10));
    }

    public EngineConfig withNodeId(String v) {
        return new EngineConfig(v, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withBatchSize(int v) {
        return new EngineConfig(nodeId, v, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withMaxInFlight(int v) {
        return new EngineConfig(nodeId, batchSize, v, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    /** Sets the lease and the request ceiling together, since one must exceed the other. */
    public EngineConfig withLease(Duration lease, Duration maxRequestTimeout) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withMaterialiserHorizon(Duration v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, v, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withPollInterval(Duration v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, v, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withReaperInterval(Duration v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, v, retention, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withRetention(Duration v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, v, shutdownGrace, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    public EngineConfig withShutdownGrace(Duration v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, v, allowPrivateEndpoints, livenessInterval, takeoverWindow);
    }

    /** Sets the liveness renewal interval and the takeover window together, since one bounds the other. */
    public EngineConfig withLiveness(Duration interval, Duration window) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, allowPrivateEndpoints, interval, window);
    }

    public EngineConfig withAllowPrivateEndpoints(boolean v) {
        return new EngineConfig(nodeId, batchSize, maxInFlight, lease, maxRequestTimeout, materialiserHorizon, pollInterval, reaperInterval, retention, shutdownGrace, v, livenessInterval, takeoverWindow);
    }
}
