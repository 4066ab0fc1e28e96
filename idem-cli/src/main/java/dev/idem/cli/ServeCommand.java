package dev.idem.cli;

import dev.idem.core.Durations;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.NodeIdInUseException;
import dev.idem.server.DataDirInUseException;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.MasterKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code idem serve}: one node of the scheduler. Every flag has an {@code IDEM_…} environment twin. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description =
                "Start an Idem node: HTTP API + delivery engine. Embedded SQLite by default; PostgreSQL with --database-url.")
public final class ServeCommand implements Callable<Integer> {
    @Option(
            names = "--port",
            defaultValue = "${env:IDEM_PORT:-8080}",
            description = "HTTP port (env IDEM_PORT, default ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--host",
            defaultValue = "${env:IDEM_HOST:-127.0.0.1}",
            description = "Address to bind (env IDEM_HOST, default ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--data-dir",
            defaultValue = "${env:IDEM_DATA_DIR:-idem-data}",
            description = "Directory of the embedded SQLite store (env IDEM_DATA_DIR, default ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--database-url",
            defaultValue = "${env:IDEM_DATABASE_URL}",
            description = "jdbc:postgresql://host/db to share one database among nodes (env IDEM_DATABASE_URL).")
    String databaseUrl;

    @Option(
            names = "--bootstrap-key",
            defaultValue = "${env:IDEM_BOOTSTRAP_KEY}",
            description = "The test-mode API key to create on first start, sk_test_… (env IDEM_BOOTSTRAP_KEY).")
    String bootstrapKey;

    @Option(
            names = "--allow-private-endpoints",
            arity = "0..1",
            fallbackValue = "true",
            defaultValue = "${env:IDEM_ALLOW_PRIVATE_ENDPOINTS:-false}",
            description =
                    "Deliver to loopback/private/link-local addresses (env IDEM_ALLOW_PRIVATE_ENDPOINTS, default ${DEFAULT-VALUE}).")
    boolean allowPrivateEndpoints;

    @Option(
            names = "--rate-limit",
            defaultValue = "${env:IDEM_RATE_LIMIT:-100}",
            description =
                    "Requests per second per API key on this node, bursts of twice that; 0 = off (env IDEM_RATE_LIMIT, default ${DEFAULT-VALUE}).")
    int rateLimit;

    @Option(
            names = "--max-in-flight",
            defaultValue = "${env:IDEM_MAX_IN_FLIGHT:-10000}",
            converter = MaxInFlightConverter.class,
            description =
                    "Deliveries this node has in flight at once (env IDEM_MAX_IN_FLIGHT, default ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(
            names = "--node-id",
            defaultValue = "${env:IDEM_NODE_ID}",
            description =
                    "This node's name in leases, unique among live nodes (env IDEM_NODE_ID, default host name + pid).")
    String nodeId;

    @Option(
            names = "--retention",
            defaultValue = "${env:IDEM_RETENTION:-30d}",
            converter = RetentionConverter.class,
            description =
                    "How long finished deliveries and their attempts are kept, e.g. 30d, 72h; at least 1h (env IDEM_RETENTION, default ${DEFAULT-VALUE}).")
    Duration retention;

    @Option(
            names = "--log-format",
            defaultValue = "${env:IDEM_LOG_FORMAT:-text}",
            description =
                    "text, or json: one JSON object per log line with delivery_id, schedule_id and node_id as fields (env IDEM_LOG_FORMAT, default ${DEFAULT-VALUE}).")
    LogFormat logFormat;

    @Option(
            names = "--otel",
            defaultValue = "${env:IDEM_OTEL:-false}",
            description =
                    "Trace API requests, creation and ingest with OpenTelemetry, configured by the standard OTEL_* variables (OTLP over HTTP to localhost:4318 unless OTEL_EXPORTER_OTLP_ENDPOINT says otherwise; env IDEM_OTEL, default off).")
    boolean otel;

    // The master key that seals stored secrets (docs/security.md): --master-key-file / IDEM_MASTER_KEY_FILE, or
    // IDEM_MASTER_KEY.
    @CommandLine.Mixin
    MasterKeyOptions masterKey;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        ServerConfig config;
        try {
            config = ServerConfig.builder()
                    .host(host)
                    .port(port)
                    .dataDir(dataDir)
                    .database(
                            blankToNull(databaseUrl),
                            System.getenv("IDEM_DATABASE_USER"),
                            System.getenv("IDEM_DATABASE_PASSWORD"))
                    .bootstrapKey(blankToNull(bootstrapKey))
                    .allowPrivateEndpoints(allowPrivateEndpoints)
                    .nodeId(blankToNull(nodeId))
                    .rateLimitPerSecond(rateLimit)
                    .retention(retention)
                    .maxInFlight(maxInFlight)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        logFormat.apply(config.nodeId());
        MasterKeys keys = masterKey.resolve(config.dataDir(), config.databaseUrl(), System.out);
        io.opentelemetry.sdk.OpenTelemetrySdk telemetry = Telemetry.start(otel);
        IdemServer server;
        try {
            server = IdemServer.start(config, keys, telemetry);
        } catch (NodeIdInUseException e) {
            if (telemetry != null) telemetry.close();
            // a second live node under one id would hold the first one's
            // claims: refuse, in one line (exit 2: fix the flags)
            throw CliException.usage(e.getMessage() + " (--node-id, IDEM_NODE_ID)", e);
        } catch (DataDirInUseException e) {
            if (telemetry != null) telemetry.close();
            // likewise a second node on one SQLite file (its message names the flag)
            throw CliException.usage(e.getMessage(), e);
        } catch (RuntimeException e) {
            if (telemetry != null) telemetry.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            if (telemetry != null) telemetry.close();
                            stopped.countDown();
                        },
                        "idem-shutdown"));
        System.out.println(readyLine(server.baseUrl()));
        System.out.flush();
        stopped.await();
        return 0;
    }

    /** One ready line with the API, dashboard, metrics and OpenAPI URLs. */
    static String readyLine(String base) {
        return "idem is ready: API " + base + "/v1, dashboard " + base + "/, metrics " + base + "/metrics, OpenAPI "
                + base + "/openapi.json (Ctrl-C to stop)";
    }

    /** {@code 30d}, {@code 72h}, {@code PT24H}…; a bad or too short value is a usage error (exit 2) before anything starts. */
    static final class RetentionConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return EngineConfig.checkRetention(Durations.parse(value));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** A whole number from 1 to 1,000,000; anything else is a usage error (exit 2) before anything starts. */
    static final class MaxInFlightConverter implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                return EngineConfig.checkMaxInFlight("--max-in-flight", Integer.parseInt(value.trim()));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        e instanceof NumberFormatException ? "'" + value + "' is not a whole number" : e.getMessage());
            }
        }
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
