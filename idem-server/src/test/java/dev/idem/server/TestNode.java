package dev.idem.server;

import dev.idem.core.store.Store;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;

/** A server on a store the test owns, on a free port, loopback endpoints allowed. */
final class TestNode implements AutoCloseable {
    static final String TEST_KEY = "sk_test_node0123456789";
    final IdemServer server;
    final ApiClientForTests api;
    final String printed;

    TestNode(Store store, Path dir, Clock clock, int rateLimit) {
        this(store, dir, clock, rateLimit, null);
    }

    /** A node tracing through {@code openTelemetry} (null: off). */
    TestNode(Store store, Path dir, Clock clock, int rateLimit, io.opentelemetry.api.OpenTelemetry openTelemetry) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ServerConfig config = ServerConfig.builder()
                .port(0)
                .dataDir(dir)
                .bootstrapKey(TEST_KEY)
                .allowPrivateEndpoints(true)
                .nodeId("node-" + System.nanoTime())
                .rateLimitPerSecond(rateLimit)
                .engine(e -> e.pollInterval(java.time.Duration.ofMillis(100))
                        .materialiserHorizon(java.time.Duration.ofSeconds(2)))
                .build();
        server = IdemServer.start(
                config,
                store,
                false,
                clock,
                new SecureRandom(),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                openTelemetry);
        printed = out.toString(StandardCharsets.UTF_8);
        api = new ApiClientForTests(server.port());
    }

    ApiClientForTests.Reply call(String method, String path, String body) {
        return api.call(method, path, TEST_KEY, body);
    }

    ApiClientForTests.Reply call(String method, String path, String body, java.util.Map<String, String> headers) {
        return api.call(method, path, TEST_KEY, body, headers);
    }

    @Override
    public void close() {
        server.close();
    }
}
