package dev.idem.server;

import dev.idem.core.IdGenerator;
import dev.idem.core.store.Store;
import dev.idem.engine.Engine;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.EndpointGuard;
import dev.idem.server.internal.Authenticator;
import dev.idem.server.internal.Bootstrap;
import dev.idem.server.internal.DeliveryService;
import dev.idem.server.internal.HttpApi;
import dev.idem.server.internal.PreviewService;
import dev.idem.server.internal.RateLimiter;
import dev.idem.server.internal.RequestIdempotency;
import dev.idem.server.internal.ScheduleParser;
import dev.idem.server.internal.ScheduleService;
import dev.idem.server.internal.SigningSecretService;
import dev.idem.store.JdbcStores;
import dev.idem.store.StoreConfig;
import io.javalin.Javalin;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
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

    private IdemServer(Store store, boolean ownsStore, Engine engine, Javalin http) {
        this.store = store;
        this.ownsStore = ownsStore;
        this.engine = engine;
        this.http = http;
    }

    /** Starts a node as configured, on the system clock, printing first-start keys to stdout. */
    public static IdemServer start(ServerConfig config) {
        return start(config, openStore(config), true, EngineConfig.defaults(config.nodeId()), Clock.systemUTC(), new SecureRandom(), System.out);
    }

    /**
     * Starts a node on a store the caller opened (tests, embedding). The caller closes the store unless
     * {@code ownsStore}.
     */
    public static IdemServer start(ServerConfig config, Store store, boolean ownsStore, EngineConfig engineConfig, Clock clock,
                                   RandomGenerator random, PrintStream out) {
        log.info("starting {}", config.describe());
        try {
            IdGenerator ids = new IdGenerator(clock, random);
            Bootstrap.run(store, config.bootstrapKey(), clock, random, ids, out);
            PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            new JvmMemoryMetrics().bindTo(metrics);
            new JvmThreadMetrics().bindTo(metrics);
            EngineConfig ec = engineConfig.withNodeId(config.nodeId()).withAllowPrivateEndpoints(config.allowPrivateEndpoints())
                    .withRetention(config.retention());
            Engine engine = new Engine(store, ec, clock, random, metrics);
            EndpointGuard guard = EndpointGuard.of(config.allowPrivateEndpoints());
            ScheduleParser parser = new ScheduleParser(uri -> guard.refusal(uri.toString()));
            var services = new HttpApi.Services(store, ids, clock, new Authenticator(store, new RateLimiter(config.rateLimitPerSecond(), clock), clock),
                    new RequestIdempotency(store, clock, engine::wakeUp),
                    new ScheduleService(store, parser, ids, clock, ec.materialiserHorizon()),
                    new DeliveryService(store, clock), new SigningSecretService(store, clock, random), new PreviewService(clock), metrics);
            engine.start();
            Javalin http = HttpApi.create(services).start(config.host(), config.port());
            log.info("idem listening on http://{}:{} (store: {})", config.host(), http.port(), store.dialect());
            return new IdemServer(store, ownsStore, engine, http);
        } catch (RuntimeException e) {
            if (ownsStore) store.close();
            throw e;
        }
    }

    static Store openStore(ServerConfig config) {
        StoreConfig sc;
        if (config.databaseUrl() == null) {
            try {
                Files.createDirectories(config.dataDir());
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot create data directory " + config.dataDir().toAbsolutePath() + ": " + e.getMessage(), e);
            }
            sc = StoreConfig.sqlite(config.dataDir());
        } else {
            sc = StoreConfig.of(config.databaseUrl(), config.databaseUser(), config.databasePassword());
        }
        return JdbcStores.open(sc, Clock.systemUTC());
    }

    /** The port the API listens on (useful with port 0). */
    public int port() {
        return http.port();
    }

    /** Stops taking requests, stops the engine gracefully (in-flight deliveries finish or are released), closes the store. */
    @Override
    public void close() {
        http.stop();
        engine.close();
        if (ownsStore) store.close();
        log.info("idem stopped");
    }
}
