package dev.idem.engine;

import dev.idem.core.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How an {@link Engine} runs. Immutable; {@link Builder#build()} validates every field once: an invalid value throws
 * {@link IllegalArgumentException} naming the field and the accepted range. Start from {@link #builder()} (production
 * defaults, no node id) or {@link #defaults(String)}, and derive a changed copy with {@link #toBuilder()}:
 *
 * <pre>{@code
 * EngineConfig config = EngineConfig.builder().nodeId("node-a").maxInFlight(2000).build();
 * EngineConfig other = config.toBuilder().nodeId("node-b").build();
 * }</pre>
 *
 * <p>The settings, each read by the accessor of its name:
 * <ul>
 *   <li>{@code nodeId}: this node's name; it owns the leases it claims, so it must be unique among live nodes
 *       (1–200 characters; no default);</li>
 *   <li>{@code batchSize}: deliveries claimed per claim transaction (1–1000);</li>
 *   <li>{@code maxInFlight}: deliveries this node holds at once (1–1,000,000): attempts on the wire, waiting for their
 *       destination, or whose outcome is being written; {@code --max-in-flight};</li>
 *   <li>{@code maxConnectionsPerHost}: attempts on the wire at once to one host and port, shared among its paths
 *       (1–1,000,000; default {@value #DEFAULT_MAX_CONNECTIONS_PER_HOST}); idem-engine/README.md, "Paths and hosts";</li>
 *   <li>{@code lease}: how long a claim is held before another node may reclaim it; longer than
 *       {@code maxRequestTimeout}, so a live node's request always finishes inside its lease;</li>
 *   <li>{@code maxRequestTimeout}: the ceiling on a schedule's per-attempt timeout (at most 60 s, the documented limit);</li>
 *   <li>{@code materialiserHorizon}: how far ahead occurrences become delivery rows; at least twice
 *       {@code pollInterval};</li>
 *   <li>{@code pollInterval}: the longest the dispatcher and materialiser sleep without a wake-up (at least 10 ms): it
 *       bounds the lag of a delivery written by another node that did not signal this one;</li>
 *   <li>{@code reaperInterval}: how often expired leases are returned to the queue;</li>
 *   <li>{@code retention}: how long finished deliveries and their attempts are kept (at least
 *       {@link #MIN_RETENTION});</li>
 *   <li>{@code shutdownGrace}: how long {@link Engine#close()} lets in-flight requests finish before releasing their
 *       leases (zero or more);</li>
 *   <li>{@code allowPrivateEndpoints}: deliver to loopback, private, link-local and metadata addresses (tests, local
 *       development);</li>
 *   <li>{@code livenessInterval}: how often the node renews its liveness record, on the store's clock (at least
 *       50 ms);</li>
 *   <li>{@code takeoverWindow}: how long a node's record may go unrenewed before a live node declares it dead and takes
 *       over its claims (at least four times {@code livenessInterval}); a node that has not renewed for half of it
 *       starts no attempts until it renews again.</li>
 * </ul>
 */
public final class EngineConfig {
    /** The documented ceiling on a per-attempt timeout (docs/api.md: {@code timeout} is at most 60 s). */
    public static final Duration MAX_TIMEOUT = dev.idem.core.ScheduleDefinition.MAX_TIMEOUT;
    /**
     * Deliveries per claim. A claim's cost is mostly its round trip and commit: with claims taking 100 ms on a loaded
     * machine, batches of 100 capped a node near 1,000 deliveries/s; 500 doubled a burst's rate in the same conditions
     * (idem-bench, 2026-11-26). A destination's free slots still bound what one claim takes of it.
     */
    public static final int DEFAULT_BATCH = 500;
    /** The documented default of {@code --max-in-flight}. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;
    /**
     * Attempts on the wire at once to one host and port, whatever their paths: a receiving host is one process or
     * gateway, and many paths of it (each with its own limit) must not open more connections to it than this.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 1_000;
    /** The most deliveries one node may hold at once. */
    public static final int MAX_IN_FLIGHT_LIMIT = 1_000_000;
    /** The shortest retention: a delivery stays readable (and replayable) at least this long after it finished. */
    public static final Duration MIN_RETENTION = Duration.ofHours(1);
    /** How long finished deliveries are kept unless configured otherwise. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

    private final String nodeId;
    private final int batchSize;
    private final int maxInFlight;
    private final int maxConnectionsPerHost;
    private final Duration lease;
    private final Duration maxRequestTimeout;
    private final Duration materialiserHorizon;
    private final Duration pollInterval;
    private final Duration reaperInterval;
    private final Duration retention;
    private final Duration shutdownGrace;
    private final boolean allowPrivateEndpoints;
    private final Duration livenessInterval;
    private final Duration takeoverWindow;

    private EngineConfig(Builder b) {
        this.nodeId = b.nodeId;
        this.batchSize = b.batchSize;
        this.maxInFlight = b.maxInFlight;
        this.maxConnectionsPerHost = b.maxConnectionsPerHost;
        this.lease = b.lease;
        this.maxRequestTimeout = b.maxRequestTimeout;
        this.materialiserHorizon = b.materialiserHorizon;
        this.pollInterval = b.pollInterval;
        this.reaperInterval = b.reaperInterval;
        this.retention = b.retention;
        this.shutdownGrace = b.shutdownGrace;
        this.allowPrivateEndpoints = b.allowPrivateEndpoints;
        this.livenessInterval = b.livenessInterval;
        this.takeoverWindow = b.takeoverWindow;
        validate();
    }

    private void validate() {
        Objects.requireNonNull(nodeId, "nodeId");
        if (nodeId.isBlank() || nodeId.length() > 200)
            throw new IllegalArgumentException("nodeId must be 1 to 200 characters, got '" + nodeId + "'");
        if (batchSize < 1 || batchSize > 1000)
            throw new IllegalArgumentException("batchSize must be between 1 and 1000, got " + batchSize);
        checkMaxInFlight("maxInFlight", maxInFlight);
        if (maxConnectionsPerHost < 1 || maxConnectionsPerHost > MAX_IN_FLIGHT_LIMIT)
            throw new IllegalArgumentException("maxConnectionsPerHost must be between 1 and " + MAX_IN_FLIGHT_LIMIT
                    + ", got " + maxConnectionsPerHost);
        positive("maxRequestTimeout", maxRequestTimeout);
        if (maxRequestTimeout.compareTo(MAX_TIMEOUT) > 0)
            throw new IllegalArgumentException("maxRequestTimeout must be at most 60s, got " + maxRequestTimeout);
        positive("lease", lease);
        if (lease.compareTo(maxRequestTimeout) <= 0)
            throw new IllegalArgumentException(
                    "lease (" + lease + ") must be longer than maxRequestTimeout (" + maxRequestTimeout
                            + "), or a slow but live request would be reclaimed by another node and sent twice at once");
        positive("pollInterval", pollInterval);
        if (pollInterval.toMillis() < 10)
            throw new IllegalArgumentException("pollInterval must be at least 10ms, got " + pollInterval);
        positive("materialiserHorizon", materialiserHorizon);
        if (materialiserHorizon.compareTo(pollInterval.multipliedBy(2)) < 0)
            throw new IllegalArgumentException(
                    "materialiserHorizon (" + materialiserHorizon + ") must be at least twice pollInterval ("
                            + pollInterval + ") so occurrences are written before they are due");
        positive("reaperInterval", reaperInterval);
        checkRetention(retention);
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        if (shutdownGrace.isNegative())
            throw new IllegalArgumentException("shutdownGrace must not be negative, got " + shutdownGrace);
        positive("livenessInterval", livenessInterval);
        if (livenessInterval.toMillis() < 50)
            throw new IllegalArgumentException("livenessInterval must be at least 50ms, got " + livenessInterval);
        positive("takeoverWindow", takeoverWindow);
        if (takeoverWindow.compareTo(livenessInterval.multipliedBy(4)) < 0)
            throw new IllegalArgumentException(
                    "takeoverWindow (" + takeoverWindow + ") must be at least four times livenessInterval ("
                            + livenessInterval + "), or one slow renewal would get a live node declared dead");
    }

    /**
     * The bound on deliveries in flight, the one rule the engine and the command line's flag share.
     *
     * @param name what the value is called in the message ({@code maxInFlight}, {@code --max-in-flight})
     * @return {@code maxInFlight} when it is between 1 and {@link #MAX_IN_FLIGHT_LIMIT}
     * @throws IllegalArgumentException naming the value, the bounds and what it was, otherwise
     */
    public static int checkMaxInFlight(String name, int maxInFlight) {
        if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT_LIMIT)
            throw new IllegalArgumentException(
                    name + " must be between 1 and " + MAX_IN_FLIGHT_LIMIT + " deliveries, got " + maxInFlight);
        return maxInFlight;
    }

    /**
     * The bound on retention, the one rule the engine and the command line's flag share.
     *
     * @return {@code retention} when it is at least {@link #MIN_RETENTION}
     * @throws IllegalArgumentException saying the bound and why, otherwise
     */
    public static Duration checkRetention(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.compareTo(MIN_RETENTION) < 0)
            throw new IllegalArgumentException("retention must be at least " + Durations.format(MIN_RETENTION)
                    + " (finished deliveries stay readable and replayable that long), got "
                    + Durations.format(retention));
        return retention;
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
    }

    /**
     * A builder holding the production defaults and no node id: batches of 500, 10,000 deliveries in flight, 90 s
     * leases, 60 s request ceiling, a 60 s materialiser horizon (100,000 cron schedules sharing an instant are written
     * in 6–19 s on a loaded 2-core machine; idem-engine/README.md, "Materialising in sets"), 500 ms poll, reaper every
     * 5 s, 30 days retention, 10 s shutdown grace, private endpoints refused, liveness renewed every 2 s with a 10 s
     * takeover window (docs/api.md, "Nodes and failover": a dead node's claims are taken over within 15 s; see the engine README for what
     * the figures add up to).
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The production defaults ({@link #builder()}) for node {@code nodeId}. */
    public static EngineConfig defaults(String nodeId) {
        return builder().nodeId(nodeId).build();
    }

    /** A builder holding this configuration, to derive another. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.nodeId = nodeId;
        b.batchSize = batchSize;
        b.maxInFlight = maxInFlight;
        b.maxConnectionsPerHost = maxConnectionsPerHost;
        b.lease = lease;
        b.maxRequestTimeout = maxRequestTimeout;
        b.materialiserHorizon = materialiserHorizon;
        b.pollInterval = pollInterval;
        b.reaperInterval = reaperInterval;
        b.retention = retention;
        b.shutdownGrace = shutdownGrace;
        b.allowPrivateEndpoints = allowPrivateEndpoints;
        b.livenessInterval = livenessInterval;
        b.takeoverWindow = takeoverWindow;
        return b;
    }

    public String nodeId() {
        return nodeId;
    }

    public int batchSize() {
        return batchSize;
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public int maxConnectionsPerHost() {
        return maxConnectionsPerHost;
    }

    public Duration lease() {
        return lease;
    }

    public Duration maxRequestTimeout() {
        return maxRequestTimeout;
    }

    public Duration materialiserHorizon() {
        return materialiserHorizon;
    }

    public Duration pollInterval() {
        return pollInterval;
    }

    public Duration reaperInterval() {
        return reaperInterval;
    }

    public Duration retention() {
        return retention;
    }

    public Duration shutdownGrace() {
        return shutdownGrace;
    }

    public boolean allowPrivateEndpoints() {
        return allowPrivateEndpoints;
    }

    public Duration livenessInterval() {
        return livenessInterval;
    }

    public Duration takeoverWindow() {
        return takeoverWindow;
    }

    @Override
    public String toString() {
        return "EngineConfig{node " + nodeId + ", batch " + batchSize + ", in flight " + maxInFlight + ", per host "
                + maxConnectionsPerHost + ", lease "
                + lease
                + ", request ceiling " + maxRequestTimeout + ", horizon " + materialiserHorizon + ", poll "
                + pollInterval
                + ", reaper " + reaperInterval + ", retention " + retention + ", shutdown grace " + shutdownGrace
                + ", private endpoints " + (allowPrivateEndpoints ? "allowed" : "refused") + ", liveness "
                + livenessInterval
                + ", takeover window " + takeoverWindow + "}";
    }

    /**
     * Collects settings; {@link #build()} checks them all at once, so fields that bound each other ({@code lease} and
     * {@code maxRequestTimeout}, {@code livenessInterval} and {@code takeoverWindow}) may be set in any order.
     */
    public static final class Builder {
        private String nodeId;
        private int batchSize = DEFAULT_BATCH;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private int maxConnectionsPerHost = DEFAULT_MAX_CONNECTIONS_PER_HOST;
        private Duration lease = Duration.ofSeconds(90);
        private Duration maxRequestTimeout = MAX_TIMEOUT;
        private Duration materialiserHorizon = Duration.ofSeconds(60);
        private Duration pollInterval = Duration.ofMillis(500);
        private Duration reaperInterval = Duration.ofSeconds(5);
        private Duration retention = DEFAULT_RETENTION;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private boolean allowPrivateEndpoints;
        private Duration livenessInterval = Duration.ofSeconds(2);
        private Duration takeoverWindow = Duration.ofSeconds(10);

        private Builder() {}

        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        public Builder maxConnectionsPerHost(int maxConnectionsPerHost) {
            this.maxConnectionsPerHost = maxConnectionsPerHost;
            return this;
        }

        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        public Builder maxRequestTimeout(Duration maxRequestTimeout) {
            this.maxRequestTimeout = maxRequestTimeout;
            return this;
        }

        public Builder materialiserHorizon(Duration materialiserHorizon) {
            this.materialiserHorizon = materialiserHorizon;
            return this;
        }

        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
            return this;
        }

        public Builder reaperInterval(Duration reaperInterval) {
            this.reaperInterval = reaperInterval;
            return this;
        }

        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        public Builder shutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
            return this;
        }

        public Builder allowPrivateEndpoints(boolean allowPrivateEndpoints) {
            this.allowPrivateEndpoints = allowPrivateEndpoints;
            return this;
        }

        public Builder livenessInterval(Duration livenessInterval) {
            this.livenessInterval = livenessInterval;
            return this;
        }

        public Builder takeoverWindow(Duration takeoverWindow) {
            this.takeoverWindow = takeoverWindow;
            return this;
        }

        /**
         * The configuration. Throws {@link IllegalArgumentException} naming the first field out of range, or
         * {@link NullPointerException} naming a field left null (the node id has no default).
         */
        public EngineConfig build() {
            return new EngineConfig(this);
        }
    }
}
