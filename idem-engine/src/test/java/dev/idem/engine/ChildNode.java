package dev.idem.engine;

import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeys;
import dev.idem.store.StoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;

/**
 * A node in its own JVM, for the test that kills one with SIGKILL: {@code ChildNode <jdbc-url> <user> <node-id>}.
 * Runs an engine with the default 90 s lease until it is killed.
 */
public final class ChildNode {
    private ChildNode() {}

    /** The environment variable holding the database's keyset (JSON). */
    static final String KEYS_ENV = "IDEM_TEST_MASTER_KEYS";

    public static void main(String[] args) throws Exception {
        StoreConfig config =
                new StoreConfig(args[0], args[1], null, 4, false, MasterKeys.parse(System.getenv(KEYS_ENV), KEYS_ENV));
        Store store = JdbcStores.open(config, Clock.systemUTC());
        EngineConfig engineConfig = EngineConfig.builder()
                .nodeId(args[2])
                .pollInterval(Duration.ofMillis(50))
                .maxInFlight(2000)
                .allowPrivateEndpoints(true)
                .build();
        Engine engine =
                new Engine(store, engineConfig, Clock.systemUTC(), new SecureRandom(), new SimpleMeterRegistry());
        engine.start();
        engine.wakeUp();
        System.out.println("child node " + args[2] + " started");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
