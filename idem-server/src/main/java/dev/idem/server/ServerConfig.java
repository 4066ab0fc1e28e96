package dev.idem.server;

import dev.idem.core.Durations;
import dev.idem.core.Mode;
import dev.idem.engine.EngineConfig;
import dev.idem.server.internal.ApiKeys;
import dev.idem.store.StoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * How a node runs: its HTTP side, composed with the {@link StoreConfig} it opens and the {@link EngineConfig} it runs.
 * Built with {@link #builder()}; each value is validated once, by the config that owns it (the port, rate limit and
 * bootstrap key here, the database URL by {@link StoreConfig}, the node id, in-flight bound and retention by {@link
 * EngineConfig}), and logged once without secrets ({@link #describe()}).
 */
public final class ServerConfig {
    public static final int DEFAULT_PORT = 8080;
    public static final int DEFAULT_RATE_LIMIT = 100;
    public static final Duration DEFAULT_RETENTION = EngineConfig.DEFAULT_RETENTION;

    private final String host;
    private final int port;
    private final Path dataDir;
    private final String databaseUrl;
    private final StoreConfig store;
    private final String bootstrapKey;
    private final int rateLimitPerSecond;
    private final HttpTimeouts httpTimeouts;
    private final EngineConfig engine;

    private ServerConfig(Builder b) {
        host = Objects.requireNonNull(b.host, "host");
        if (b.port < 0 || b.port > 65535)
            throw new IllegalArgumentException("--port must be between 0 and 65535, got " + b.port);
        port = b.port;
        if (b.databaseUrl == null)
            Objects.requireNonNull(b.dataDir, "--data-dir is needed when no --database-url is given");
        dataDir = b.dataDir;
        databaseUrl = b.databaseUrl;
        try {
            store = b.databaseUrl == null
                    ? StoreConfig.sqlite(b.dataDir)
                    : StoreConfig.of(b.databaseUrl, b.databaseUser, b.databasePassword);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--database-url: " + e.getMessage(), e);
        }
        if (b.bootstrapKey != null) {
            try {
                ApiKeys.validateShape(b.bootstrapKey, Mode.TEST);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--bootstrap-key: " + e.getMessage(), e);
            }
        }
        bootstrapKey = b.bootstrapKey;
        if (b.rateLimitPerSecond < 0 || b.rateLimitPerSecond > 1_000_000)
            throw new IllegalArgumentException(
                    "--rate-limit must be between 0 (off) and 1000000 requests per second, got "
                            + b.rateLimitPerSecond);
        rateLimitPerSecond = b.rateLimitPerSecond;
        httpTimeouts = b.httpTimeouts == null ? HttpTimeouts.DEFAULTS : b.httpTimeouts;
        engine = b.engineSettings
                .apply(EngineConfig.builder())
                .nodeId(b.nodeId == null || b.nodeId.isBlank() ? defaultNodeId() : b.nodeId)
                .maxInFlight(b.maxInFlight)
                .retention(b.retention)
                .allowPrivateEndpoints(b.allowPrivateEndpoints)
                .build();
    }

    /**
     * A builder with the defaults: 127.0.0.1:{@value #DEFAULT_PORT}, {@code ./idem-data}, embedded SQLite, a rate
     * limit of {@value #DEFAULT_RATE_LIMIT} requests per second per key, the engine's defaults for retention and
     * deliveries in flight, private endpoints refused, host name + pid as the node id.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults of {@link #builder()}. */
    public static ServerConfig defaults() {
        return builder().build();
    }

    /** A builder holding this config's values. */
    public Builder toBuilder() {
        Builder b = new Builder()
                .host(host)
                .port(port)
                .dataDir(dataDir)
                .bootstrapKey(bootstrapKey)
                .rateLimitPerSecond(rateLimitPerSecond)
                .httpTimeouts(httpTimeouts)
                .nodeId(engine.nodeId())
                .maxInFlight(engine.maxInFlight())
                .retention(engine.retention())
                .allowPrivateEndpoints(engine.allowPrivateEndpoints())
                .engine(ignored -> engine.toBuilder());
        if (databaseUrl != null) b.database(databaseUrl, store.user(), store.password());
        return b;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Where the embedded store, its keyset and its lock live; may be null when a {@link #databaseUrl()} is given. */
    public Path dataDir() {
        return dataDir;
    }

    /** The {@code jdbc:postgresql:} (or {@code jdbc:sqlite:}) URL given, or null for embedded SQLite in the data dir. */
    public String databaseUrl() {
        return databaseUrl;
    }

    /** The store this node opens (without master keys; {@link IdemServer#start(ServerConfig, dev.idem.store.MasterKeys)} adds them). */
    public StoreConfig store() {
        return store;
    }

    /**
     * The engine this node runs: node id, in-flight bound, retention and private-endpoint policy from this config, the
     * rest from {@link Builder#engine(UnaryOperator)} (the engine's defaults unless set).
     */
    public EngineConfig engine() {
        return engine;
    }

    /** The test-mode API key to create on first start, or null to generate one. */
    public String bootstrapKey() {
        return bootstrapKey;
    }

    /** Requests per second allowed per API key on this node (bursts of twice that); 0 is off. */
    public int rateLimitPerSecond() {
        return rateLimitPerSecond;
    }

    /** How long a client may take to send a request. */
    public HttpTimeouts httpTimeouts() {
        return httpTimeouts;
    }

    /** This node's name in leases: {@link #engine()}'s. */
    public String nodeId() {
        return engine.nodeId();
    }

    /** Whether endpoints on private addresses are allowed: {@link #engine()}'s. */
    public boolean allowPrivateEndpoints() {
        return engine.allowPrivateEndpoints();
    }

    /** How long finished deliveries are kept: {@link #engine()}'s. */
    public Duration retention() {
        return engine.retention();
    }

    /** Deliveries this node holds in flight at once: {@link #engine()}'s. */
    public int maxInFlight() {
        return engine.maxInFlight();
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
        String db = databaseUrl == null ? "sqlite in " + dataDir.toAbsolutePath() : StoreConfig.redact(databaseUrl);
        return "node " + nodeId() + " on http://" + host + ":" + port + ", store " + db
                + (allowPrivateEndpoints() ? ", private endpoints ALLOWED" : "")
                + (rateLimitPerSecond == 0 ? ", no rate limit" : ", rate limit " + rateLimitPerSecond + "/s per key")
                + ", at most " + maxInFlight() + " deliveries in flight, finished deliveries kept "
                + Durations.format(retention());
    }

    /** Never shows the password or the bootstrap key. */
    @Override
    public String toString() {
        return "ServerConfig[" + describe() + "]";
    }

    /** Collects the values; {@link #build()} validates them. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private Path dataDir = Path.of("idem-data");
        private String databaseUrl;
        private String databaseUser;
        private String databasePassword;
        private String bootstrapKey;
        private boolean allowPrivateEndpoints;
        private String nodeId;
        private int rateLimitPerSecond = DEFAULT_RATE_LIMIT;
        private Duration retention = EngineConfig.DEFAULT_RETENTION;
        private int maxInFlight = EngineConfig.DEFAULT_MAX_IN_FLIGHT;
        private HttpTimeouts httpTimeouts;
        private UnaryOperator<EngineConfig.Builder> engineSettings = UnaryOperator.identity();

        private Builder() {}

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** The embedded store's directory (needed when no database URL is given). */
        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        /**
         * A database instead of embedded SQLite: a {@code jdbc:postgresql:} (or {@code jdbc:sqlite:}) URL, null for
         * embedded SQLite; user and password may be null.
         */
        public Builder database(String url, String user, String password) {
            this.databaseUrl = url;
            this.databaseUser = user;
            this.databasePassword = password;
            return this;
        }

        /** The test-mode API key to create on first start; null generates one. */
        public Builder bootstrapKey(String bootstrapKey) {
            this.bootstrapKey = bootstrapKey;
            return this;
        }

        public Builder allowPrivateEndpoints(boolean allow) {
            this.allowPrivateEndpoints = allow;
            return this;
        }

        /** This node's name in leases; null or blank means host name + pid. */
        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        /** Requests per second per API key (bursts of twice that); 0 turns the limit off. */
        public Builder rateLimitPerSecond(int rateLimitPerSecond) {
            this.rateLimitPerSecond = rateLimitPerSecond;
            return this;
        }

        /** How long finished deliveries (succeeded, dead, cancelled) and their attempts are kept. */
        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        /** Deliveries this node holds in flight at once ({@code --max-in-flight}). */
        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        /**
         * The engine's settings beyond the four this builder sets itself (poll interval, materialiser horizon, lease,
         * per-host connections, …), applied to {@link EngineConfig#builder()}: for example {@code .engine(e ->
         * e.pollInterval(Duration.ofMillis(100)))}. The node id, in-flight bound, retention and private-endpoint policy
         * are always this builder's, whatever {@code settings} gives them.
         */
        public Builder engine(UnaryOperator<EngineConfig.Builder> settings) {
            this.engineSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** How long a client may take to send a request; null means {@link HttpTimeouts#DEFAULTS}. */
        public Builder httpTimeouts(HttpTimeouts httpTimeouts) {
            this.httpTimeouts = httpTimeouts;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the flag or field, the accepted values and the value given
         * @throws NullPointerException for a missing host, data directory (without a database URL) or retention
         */
        public ServerConfig build() {
            return new ServerConfig(this);
        }
    }
}
