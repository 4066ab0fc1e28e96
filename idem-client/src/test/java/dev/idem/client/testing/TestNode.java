package dev.idem.client.testing;

import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.core.store.Store;
import dev.idem.server.IdemServer;
import dev.idem.server.ServerConfig;
import dev.idem.store.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;

/**
 * A real Idem node in this JVM (the server, its engine and an SQLite store in {@code dir}) on a free port, loopback
 * endpoints allowed, no rate limit. {@link #restart()} stops the node and starts another on the same store.
 */
public final class TestNode implements AutoCloseable {
    public static final String API_KEY = "sk_test_client_0123456789";
    private final Store store;
    private final Path dir;
    private IdemServer server;
    private boolean running;

    public TestNode(Path dir) {
        this.dir = dir;
        this.store = TestStores.sqlite(dir, Clock.systemUTC());
        start();
    }

    private void start() {
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(API_KEY)
                .allowPrivateEndpoints(true)
                .nodeId("client-test-" + System.nanoTime())
                .rateLimitPerSecond(0)
                .engine(e -> e.pollInterval(Duration.ofMillis(100)).materialiserHorizon(Duration.ofSeconds(2)))
                .build();
        server = IdemServer.start(
                config,
                store,
                false,
                Clock.systemUTC(),
                new SecureRandom(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        running = true;
    }

    public int port() {
        return server.port();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    /** A client of this node with quick retries on the real clock. */
    public IdemClient client() {
        return IdemClient.create(config(url()).build());
    }

    /** A client configuration for {@code url} (this node, or a proxy in front of it) with short backoffs. */
    public static IdemClientConfig.Builder config(String url) {
        return IdemClientConfig.builder(url)
                .apiKey(API_KEY)
                .initialBackoff(Duration.ofMillis(50))
                .maxBackoff(Duration.ofMillis(400))
                .requestTimeout(Duration.ofSeconds(20));
    }

    /** Stops this node (gracefully) and starts a new one on the same store, on a new port. */
    public void restart() {
        stop();
        start();
    }

    /** Stops the node; {@link #restart()} brings one back. */
    public void stop() {
        if (running) server.close();
        running = false;
    }

    @Override
    public void close() {
        try {
            stop();
        } finally {
            store.close();
        }
    }
}
