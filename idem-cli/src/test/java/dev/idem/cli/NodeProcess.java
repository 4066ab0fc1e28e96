package dev.idem.cli;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * An {@code idem} process started from a command line, as a user or a container runtime starts it: its stdout and
 * stderr go to files beside each other, none of the test JVM's {@code IDEM_*} variables leak into it.
 */
final class NodeProcess implements AutoCloseable {
    static final Path JAR = Path.of("target", "idem.jar");
    final Process process;
    final Path stdout;
    final Path stderr;
    final int port;
    private final String apiKey;
    private final HttpClient http = HttpClient.newHttpClient();

    private NodeProcess(Process process, Path stdout, Path stderr, int port, String apiKey) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.port = port;
        this.apiKey = apiKey;
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * The JIT flag every test's {@code java} command starts with: the first compiler only. A test's node lives for
     * seconds to minutes and never repays what the optimising compiler costs; without it a node's start takes about a
     * third less CPU (idem-bench/runs/2026-11-30T0020-test-node-jit-cpu.txt), and the process tests start dozens of
     * nodes on two cores at once. What the tests check (answers, timings of leases and takeovers) does not depend on the tier.
     */
    static final String QUICK_START = "-XX:TieredStopAtLevel=1";

    /** {@code java} with {@link #QUICK_START}, then {@code args}. */
    static List<String> javaCommand(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of(java(), QUICK_START));
        command.addAll(List.of(args));
        return command;
    }

    /** {@code java -jar target/idem.jar <args>} with these extra environment variables. */
    static NodeProcess idem(Path logs, int port, String apiKey, Map<String, String> env, String... args)
            throws IOException {
        List<String> command = javaCommand("-jar", JAR.toString());
        command.addAll(List.of(args));
        return start(command, logs, port, apiKey, env, Path.of(""));
    }

    static NodeProcess start(
            List<String> command, Path logs, int port, String apiKey, Map<String, String> env, Path workDir)
            throws IOException {
        if (!Files.exists(JAR))
            throw new IllegalStateException(JAR + " is built in the package phase; run the *IT tests with mvn verify");
        Files.createDirectories(logs);
        ProcessBuilder pb =
                new ProcessBuilder(command).directory(workDir.toAbsolutePath().toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        pb.environment().putAll(env);
        String name = "node-" + System.nanoTime();
        Path out = logs.resolve(name + ".out");
        Path err = logs.resolve(name + ".err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        return new NodeProcess(pb.start(), out, err, port, apiKey);
    }

    /**
     * Waits until {@code /readyz} answers 200, within a bound meant for a saturated machine: CI runs the process tests'
     * classes at the same time on two cores, where a node's start (a few CPU seconds) has taken over a minute. A node
     * that exits fails at once, so only a node that never gets ready waits the whole bound.
     */
    NodeProcess awaitReady() {
        return awaitReady(Duration.ofSeconds(180));
    }

    /** Waits until {@code /readyz} answers 200, for a test that starts several nodes on a busy machine. */
    NodeProcess awaitReady(Duration atMost) {
        await().atMost(atMost).ignoreExceptions().until(() -> {
            if (!process.isAlive())
                throw new AssertionError(
                        "the node exited with " + process.exitValue() + ": " + Files.readString(stderr));
            return get("/readyz").statusCode() == 200;
        });
        return this;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(request(path).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(
                request(path)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + apiKey);
    }

    List<String> stderrLines() throws IOException {
        return Files.readAllLines(stderr);
    }

    /** SIGTERM, as {@code docker stop} and Ctrl-C send, and the exit code once the node has shut down. */
    int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS))
            process.destroyForcibly().waitFor();
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
