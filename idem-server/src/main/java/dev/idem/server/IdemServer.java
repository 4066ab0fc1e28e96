package dev.idem.server;

import dev.idem.core.IdGenerator;
import dev.idem.core.store.Store;
import dev.idem.engine.EndpointGuard;
import dev.idem.engine.Engine;
import dev.idem.engine.EngineConfig;
import dev.idem.server.internal.Authenticator;
import dev.idem.server.internal.Bootstrap;
import dev.idem.server.internal.DataDirLock;
import dev.idem.server.internal.DeliveryService;
import dev.idem.server.internal.FirstStartKeys;
import dev.idem.server.internal.HttpApi;
import dev.idem.server.internal.Metrics;
import dev.idem.server.internal.PreviewService;
import dev.idem.server.internal.RateLimiter;
import dev.idem.server.internal.RequestIdempotency;
import dev.idem.server.internal.ScheduleParser;
import dev.idem.server.internal.ScheduleService;
import dev.idem.server.internal.ServerTracing;
import dev.idem.server.internal.SigningSecretService;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeys;
import io.javalin.Javalin;
import io.javalin.util.JavalinBindException;
import io.javalin.util.JavalinException;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One Idem node: the store, the delivery engine and the HTTP API. Any number may share one PostgreSQL. */
public final class IdemServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IdemServer.class);
    private final Store store;
    private final boolean ownsStore;
    private final Engine engine;
    private final Javalin http;
    private final Metrics metrics;
    private final String host;

    private AutoCloseable dataDirLock;

    private IdemServer(Store store, boolean ownsStore, Engine engine, Javalin http, Metrics metrics, String host) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.engine = engine;
        this.http = http;
        this.metrics = metrics;
        this.host = host;
    }

    /**
     * Starts a node as configured, on the system clock. On embedded SQLite it first takes the data directory's lock
     * ({@link DataDirInUseException} when another node holds it); the port is checked before anything is created; the
     * first start's keys are printed on a terminal, else written to a file in the data directory whose path is
     * printed ({@link FirstStartKeys}).
     */
    public static IdemServer start(ServerConfig config) {
        return start(config, null);
    }

    /**
     * As {@link #start(ServerConfig)}, sealing secrets with {@code masterKeys}; null means the embedded store's keyset
     * file beside its database (made on first start), and a PostgreSQL store refuses to open ({@link
     * dev.idem.store.MasterKeyException}).
     */
    public static IdemServer start(ServerConfig config, MasterKeys masterKeys) {
        return start(config, masterKeys, null);
    }

    /**
     * As {@link #start(ServerConfig, MasterKeys)}, tracing through {@code openTelemetry} (docs/tracing.md); null means
     * off: no spans, and creators' trace contexts passed on as they came. The caller closes its SDK after the node.
     */
    public static IdemServer start(ServerConfig config, MasterKeys masterKeys, OpenTelemetry openTelemetry) {
        DataDirLock lock = config.databaseUrl() == null ? DataDirLock.acquire(config.dataDir()) : null;
        try {
            ensurePortFree(config);
            IdemServer node = start(
                    config,
                    openStore(config, masterKeys),
                    true,
                    Clock.systemUTC(),
                    new SecureRandom(),
                    FirstStartKeys.forOutput(System.console() != null, config.dataDir(), System.out),
                    tracing(openTelemetry));
            node.dataDirLock = lock;
            return node;
        } catch (RuntimeException e) {
            if (lock != null) lock.close();
            throw e;
        }
    }

    /**
     * Starts a node on a store the caller opened (tests, embedding), running the engine {@link ServerConfig#engine()}
     * describes and printing the first start's keys to {@code out}. The caller closes the store unless {@code
     * ownsStore}.
     */
    public static IdemServer start(
            ServerConfig config, Store store, boolean ownsStore, Clock clock, RandomGenerator random, PrintStream out) {
        return start(config, store, ownsStore, clock, random, out, null);
    }

    /**
     * As {@link #start(ServerConfig, Store, boolean, Clock, RandomGenerator, PrintStream)}, tracing through {@code
     * openTelemetry}; null means off.
     */
    public static IdemServer start(
            ServerConfig config,
            Store store,
            boolean ownsStore,
            Clock clock,
            RandomGenerator random,
            PrintStream out,
            OpenTelemetry openTelemetry) {
        return start(config, store, ownsStore, clock, random, FirstStartKeys.printTo(out), tracing(openTelemetry));
    }

    private static ServerTracing tracing(OpenTelemetry openTelemetry) {
        return openTelemetry == null ? ServerTracing.off() : ServerTracing.of(openTelemetry);
    }

    /**
     * The HTTP port is checked before the first start creates anything and bound before the engine starts, so a port
     * in use fails the start ({@link StartupException}) before any key is shown or any delivery is claimed.
     */
    private static IdemServer start(
            ServerConfig config,
            Store store,
            boolean ownsStore,
            Clock clock,
            RandomGenerator random,
            FirstStartKeys keys,
            ServerTracing tracing) {
        log.info("starting {}", config.describe());
        Metrics metrics = null;
        Engine engine = null;
        Javalin http = null;
        try {
            IdGenerator ids = new IdGenerator(clock, random);
            ensurePortFree(config);
            Bootstrap.run(store, config.bootstrapKey(), clock, random, ids, keys);
            metrics = new Metrics();
            EngineConfig ec = config.engine();
            engine = new Engine(store, ec, clock, random, metrics.registry(), tracing.openTelemetry());
            Metrics.writeGroups(metrics.registry(), store);
            EndpointGuard guard = EndpointGuard.of(config.allowPrivateEndpoints());
            ScheduleParser parser = new ScheduleParser(uri -> guard.refusal(uri.toString()));
            var services = new HttpApi.Services(
                    store,
                    ids,
                    clock,
                    new Authenticator(store, new RateLimiter(config.rateLimitPerSecond(), clock), clock),
                    new RequestIdempotency(store, clock),
                    new ScheduleService(store, parser, ids, clock, ec.materialiserHorizon(), engine.occurrences()),
                    new DeliveryService(store, clock, engine),
                    new SigningSecretService(store, clock, random),
                    new PreviewService(clock),
                    metrics.registry(),
                    tracing);
            http = HttpApi.create(services, config.httpTimeouts());
            bind(http, config, metrics);
            engine.start();
            IdemServer node = new IdemServer(store, ownsStore, engine, http, metrics, config.host());
            log.info("idem listening on {} (store: {})", node.baseUrl(), store.dialect());
            return node;
        } catch (RuntimeException e) {
            if (http != null) http.stop();
            if (engine != null) engine.close();
            if (metrics != null) metrics.close();
            if (ownsStore) store.close();
            throw e;
        }
    }

    /**
     * Binds the port for a moment, so a port in use is found before the first start creates the project and shows
     * its keys (the real bind comes after; a process taking the port in between still fails that bind).
     */
    private static void ensurePortFree(ServerConfig config) {
        if (config.port() == 0) return;
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(config.host(), config.port()));
        } catch (BindException e) {
            throw portInUse(config, e);
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            // an address that cannot be bound at all: Javalin's bind reports it with its own words
        }
    }

    private static StartupException portInUse(ServerConfig config, Exception e) {
        return new StartupException(
                "port " + config.port() + " on " + config.host() + " is already in use: stop the process "
                        + "that holds it, or start idem on a free port with --port (IDEM_PORT)",
                e);
    }

    private static void bind(Javalin http, ServerConfig config, Metrics metrics) {
        try {
            http.start(config.host(), config.port());
        } catch (JavalinBindException e) {
            throw portInUse(config, e);
        } catch (JavalinException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            throw new StartupException(
                    "cannot serve HTTP on " + config.host() + ":" + config.port() + ": " + root.getMessage()
                            + " (check --host / IDEM_HOST and --port / IDEM_PORT)",
                    e);
        }
        HttpApi.afterStart(http, metrics.registry());
    }

    static Store openStore(ServerConfig config, MasterKeys masterKeys) {
        if (config.databaseUrl() == null) {
            try {
                Files.createDirectories(config.dataDir());
            } catch (java.io.IOException e) {
                throw new IllegalStateException(
                        "cannot create data directory " + config.dataDir().toAbsolutePath() + ": " + e.getMessage(), e);
            }
        }
        return JdbcStores.open(config.store().withMasterKeys(masterKeys), Clock.systemUTC());
    }

    private void closeLock() {
        try {
            dataDirLock.close();
        } catch (Exception e) {
            log.warn("could not release the data directory's lock: {}", e.toString());
        }
    }

    /** The port the API listens on (useful with port 0). */
    public int port() {
        return http.port();
    }

    /**
     * Where clients reach this node: {@code http://host:port}, with {@code localhost} for a wildcard address (which
     * is not a place to send requests to) and brackets around an IPv6 literal.
     */
    public String baseUrl() {
        String h = host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") ? "localhost" : host;
        if (h.contains(":") && !h.startsWith("[")) h = "[" + h + "]";
        return "http://" + h + ":" + port();
    }

    /** Stops taking requests, stops the engine gracefully (in-flight deliveries finish or are released), closes the store. */
    @Override
    public void close() {
        try {
            http.stop();
        } catch (RuntimeException e) {
            // Jetty waited its stop timeout for requests still arriving (a slow client's body) and then stopped anyway:
            // the engine, the metrics and the store must still be closed
            log.warn(
                    "the HTTP server stopped without waiting for every request to finish: {}",
                    String.valueOf(e.getCause() == null ? e : e.getCause()));
        } finally {
            try {
                engine.close();
            } finally {
                try {
                    metrics.close();
                } finally {
                    try {
                        if (ownsStore) store.close();
                    } finally {
                        if (dataDirLock != null) closeLock();
                    }
                }
            }
        }
        log.info("idem stopped");
    }
}
