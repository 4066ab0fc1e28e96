package dev.idem.server;

import dev.idem.core.Durations;
import dev.idem.engine.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a node runs; validated once, logged once (without secrets).
 *
 * @param databaseUrl a {@code jdbc:postgresql:} URL, or null for embedded SQLite in {@code dataDir}
 * @param bootstrapKey the test-mode API key to create on first start, or null to generate one
 * @param nodeId this node's name in leases; null means host name + pid
 * @param rateLimitPerSecond requests per second allowed per API key on this node (bursts of twice that); 0 turns it off
 * @param retention how long finished deliveries (succeeded, dead, cancelled) and their attempts are kept; at least
 *     {@link EngineConfig#MIN_RETENTION}
 * @param maxInFlight deliveries this node holds in flight at once ({@code --max-in-flight})
 * @param httpTimeouts how long a client may take to send a request; null means {@link HttpTimeouts#DEFAULTS}
 */
public record ServerConfig(
        String host,
        int port,
        Path dataDir,
        String databaseUrl,
        String databaseUser,
        String databasePassword,
        String bootstrapKey,
        boolean allowPrivateEndpoints,
        String nodeId,
        int rateLimitPerSecond,
        Duration retention,
        int maxInFlight,
        HttpTimeouts httpTimeouts) {
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_RATE_LIMIT = 100;
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);

    /** With the default HTTP timeouts. */
    public ServerConfig(
            String host,
            int port,
            Path dataDir,
            String databaseUrl,
            String databaseUser,
            String databasePassword,
            String bootstrapKey,
            boolean allowPrivateEndpoints,
            String nodeId,
            int rateLimitPerSecond,
            Duration retention,
            int maxInFlight) {
        this(
                host,
                port,
                dataDir,
                databaseUrl,
                databaseUser,
                databasePassword,
                bootstrapKey,
                allowPrivateEndpoints,
                nodeId,
                rateLimitPerSecond,
                retention,
                maxInFlight,
                null);
    }

    /** With the default rate limit. */
    public ServerConfig(
            String host,
            int port,
            Path dataDir,
            String databaseUrl,
            String databaseUser,
            String databasePassword,
            String bootstrapKey,
            boolean allowPrivateEndpoints,
            String nodeId) {
        this(
                host,
                port,
                dataDir,
                databaseUrl,
                databaseUser,
                databasePassword,
                bootstrapKey,
                allowPrivateEndpoints,
                nodeId,
                DEFAULT_RATE_LIMIT);
    }

    /** With the default retention. */
    public ServerConfig(
            String host,
            int port,
            Path dataDir,
            String databaseUrl,
            String databaseUser,
            String databasePassword,
            String bootstrapKey,
            boolean allowPrivateEndpoints,
            String nodeId,
            int rateLimitPerSecond) {
        this(
                host,
                port,
                dataDir,
                databaseUrl,
                databaseUser,
                databasePassword,
                bootstrapKey,
                allowPrivateEndpoints,
                nodeId,
                rateLimitPerSecond,
                DEFAULT_RETENTION);
    }

    /** With the default in-flight bound. */
    public ServerConfig(
            String host,
            int port,
            Path dataDir,
            String databaseUrl,
            String databaseUser,
            String databasePassword,
            String bootstrapKey,
            boolean allowPrivateEndpoints,
            String nodeId,
            int rateLimitPerSecond,
            Duration retention) {
        this(
                host,
                port,
                dataDir,
                databaseUrl,
                databaseUser,
                databasePassword,
                bootstrapKey,
                allowPrivateEndpoints,
                nodeId,
                rateLimitPerSecond,
                retention,
                EngineConfig.DEFAULT_MAX_IN_FLIGHT);
    }

    public ServerConfig {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535)
            throw new IllegalArgumentException("--port must be between 0 and 65535, got " + port);
        if (databaseUrl == null)
            Objects.requireNonNull(dataDir, "--data-dir is needed when no --database-url is given");
        if (databaseUrl != null
                && !databaseUrl.startsWith("jdbc:postgresql:")
                && !databaseUrl.startsWith("jdbc:sqlite:"))
            throw new IllegalArgumentException("--database-url must start with jdbc:postgresql: (or jdbc:sqlite:), got "
                    + dev.idem.store.StoreConfig.redact(databaseUrl));
        if (bootstrapKey != null) {
            try {
                dev.idem.server.internal.ApiKeys.validateShape(bootstrapKey, dev.idem.core.Mode.TEST);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--bootstrap-key: " + e.getMessage(), e);
            }
        }
        if (nodeId == null || nodeId.isBlank()) nodeId = defaultNodeId();
        if (rateLimitPerSecond < 0 || rateLimitPerSecond > 1_000_000)
            throw new IllegalArgumentException(
                    "--rate-limit must be between 0 (off) and 1000000 requests per second, got " + rateLimitPerSecond);
        checkRetention(retention);
        checkMaxInFlight(maxInFlight);
        if (httpTimeouts == null) httpTimeouts = HttpTimeouts.DEFAULTS;
    }

    public ServerConfig withHttpTimeouts(HttpTimeouts timeouts) {
        return new ServerConfig(
                host,
                port,
                dataDir,
                databaseUrl,
                databaseUser,
                databasePassword,
                bootstrapKey,
                allowPrivateEndpoints,
                nodeId,
                rateLimitPerSecond,
                retention,
                maxInFlight,
                timeouts);
    }

    /**
     * @return {@code maxInFlight} when it is between 1 and {@link EngineConfig#MAX_IN_FLIGHT_LIMIT}
     * @throws IllegalArgumentException naming the flag, the bounds and the value, otherwise
     */
    public static int checkMaxInFlight(int maxInFlight) {
        if (maxInFlight < 1 || maxInFlight > EngineConfig.MAX_IN_FLIGHT_LIMIT)
            throw new IllegalArgumentException("--max-in-flight must be between 1 and "
                    + EngineConfig.MAX_IN_FLIGHT_LIMIT + " deliveries, got " + maxInFlight);
        return maxInFlight;
    }

    /**
     * @return {@code retention} when it is at least {@link EngineConfig#MIN_RETENTION}
     * @throws IllegalArgumentException saying the bound and why, otherwise
     */
    public static Duration checkRetention(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.compareTo(EngineConfig.MIN_RETENTION) < 0)
            throw new IllegalArgumentException(
                    "retention must be at least " + Durations.format(EngineConfig.MIN_RETENTION)
                            + " (finished deliveries stay readable and replayable that long), got "
                            + Durations.format(retention));
        return retention;
    }

    /** Defaults: 127.0.0.1:8080, {@code ./idem-data}, embedded SQLite. */
    public static ServerConfig defaults() {
        return new ServerConfig("127.0.0.1", DEFAULT_PORT, Path.of("idem-data"), null, null, null, null, false, null);
    }

    static String defaultNodeId() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "localhost";
        }
        return host + "-" + ProcessHandle.current().pid();
    }

    /** For the start-up log line: no passwords, no keys. */
    public String describe() {
        String db = databaseUrl == null
                ? "sqlite in " + dataDir.toAbsolutePath()
                : dev.idem.store.StoreConfig.redact(databaseUrl);
        return "node " + nodeId + " on http://" + host + ":" + port + ", store " + db
                + (allowPrivateEndpoints ? ", private endpoints ALLOWED" : "")
                + (rateLimitPerSecond == 0 ? ", no rate limit" : ", rate limit " + rateLimitPerSecond + "/s per key")
                + ", at most " + maxInFlight + " deliveries in flight, finished deliveries kept "
                + Durations.format(retention);
    }
}
