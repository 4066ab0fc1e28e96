package dev.idem.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The idem fat jar as a user runs it ({@code ./idem serve}), on an SQLite data directory that outlives the process. */
final class IdemProcess implements AutoCloseable {
    static final String API_KEY = "sk_test_e2e_outbox_0123456789";
    private final Path dataDir;
    private final Path log;
    private Process process;
    private int port;

    IdemProcess(Path dir) {
        this.dataDir = dir.resolve("idem-data");
        this.log = dir.resolve("idem.log");
    }

    /** Starts a node on a free port and waits until it is ready. */
    IdemProcess start() throws IOException {
        Path jar =
                Path.of("..", "idem-cli", "target", "idem.jar").toAbsolutePath().normalize();
        if (!jar.toFile().exists())
            throw new IllegalStateException("the idem fat jar is built before this module: " + jar);
        port = freePort();
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // the first compiler only: a test's node lives for seconds and never repays the optimising compiler's
                // CPU (idem-bench/runs/2026-11-30T0020-test-node-jit-cpu.txt); what the test checks does not depend on
                // it
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar.toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--data-dir",
                dataDir.toString(),
                "--bootstrap-key",
                API_KEY,
                "--allow-private-endpoints",
                "--rate-limit",
                "0");
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        HttpClient http = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> http.send(
                                        HttpRequest.newBuilder(URI.create(url() + "/readyz"))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200);
        return this;
    }

    /** SIGKILL: no shutdown hook, no lease released, nothing flushed that was not committed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException("idem did not die");
    }

    int port() {
        return port;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
