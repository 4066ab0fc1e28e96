package dev.idem.cli.failover;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One node as users run it: {@code java -jar idem.jar serve …} in a process of its own, its output in a log file. */
final class JarNode implements AutoCloseable {
    /** The master key every PostgreSQL node of this JVM's tests shares, as nodes sharing a database must. */
    static final String MASTER_KEY = java.util.Base64.getEncoder().encodeToString(randomKey());

    private static byte[] randomKey() {
        byte[] k = new byte[32];
        new java.security.SecureRandom().nextBytes(k);
        return k;
    }

    static final String KEY = "sk_test_failover_0123456789";

    /**
     * Nodes booting at once: the scenarios run concurrently and a JVM's start is mostly CPU, so a dozen started
     * together on two cores each took minutes; two at a time, each boots about as fast as alone. A node holds its
     * permit from launch until it is ready, exits or is closed.
     */
    private static final java.util.concurrent.Semaphore BOOTS = new java.util.concurrent.Semaphore(2, true);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    final String name;
    final int port;
    final Path log;
    private final Process process;
    private final java.util.concurrent.atomic.AtomicBoolean booting =
            new java.util.concurrent.atomic.AtomicBoolean(true);

    private JarNode(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
        process.onExit().thenRun(this::booted);
    }

    /** Gives the boot permit back, once. */
    private void booted() {
        if (booting.compareAndSet(true, false)) BOOTS.release();
    }

    /**
     * Starts {@code idem serve} and returns once its process runs (not once it is ready: see {@link #awaitReady()}).
     *
     * @param nodeId {@code --node-id}, or null for the default (host name + pid)
     * @param databaseUrl {@code --database-url}, or null for SQLite in {@code dataDir}
     */
    static JarNode launch(Path dir, String name, String nodeId, String databaseUrl, String databaseUser, Path dataDir)
            throws IOException {
        Path jar = Path.of("target", "idem.jar").toAbsolutePath();
        if (!Files.exists(jar))
            throw new IllegalStateException("the fat jar is built in the package phase: " + jar.toAbsolutePath());
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // the first compiler only, as every test node (NodeProcess.QUICK_START says why)
                "-XX:TieredStopAtLevel=1",
                "-Xmx256m",
                "-jar",
                jar.toString(),
                "serve",
                "--port",
                Integer.toString(port),
                "--bootstrap-key",
                KEY,
                "--allow-private-endpoints",
                "--rate-limit",
                "0"));
        if (nodeId != null) cmd.addAll(List.of("--node-id", nodeId));
        if (databaseUrl != null) cmd.addAll(List.of("--database-url", databaseUrl));
        else cmd.addAll(List.of("--data-dir", dataDir.toString()));
        // each node in the scenario's directory: what a node writes beside itself (the first start's keys) stays
        // there, apart from the other scenarios running at the same time, and out of the source tree
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("IDEM_"));
        if (databaseUser != null) pb.environment().put("IDEM_DATABASE_USER", databaseUser);
        if (databaseUrl != null) pb.environment().put("IDEM_MASTER_KEY", MASTER_KEY);
        Path log = dir.resolve(name + ".log");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        BOOTS.acquireUninterruptibly();
        try {
            return new JarNode(name, port, log, pb.start());
        } catch (IOException | RuntimeException e) {
            BOOTS.release();
            throw e;
        }
    }

    /** Waits until {@code /readyz} answers 200 (the engine has joined the store's nodes by then). */
    JarNode awaitReady() throws Exception {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (System.nanoTime() < deadline) {
                if (!process.isAlive())
                    throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + log());
                try {
                    if (get("/readyz").statusCode() == 200) return this;
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException(name + " not ready after 90 s:\n" + log());
        } finally {
            booted();
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    /** SIGKILL: no shutdown hook runs, no lease is released, the liveness record stays as it was. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) throw new IllegalStateException(name + " survived SIGKILL");
    }

    /** SIGSTOP: every thread freezes, sockets stay open. */
    void pause() throws Exception {
        signal("STOP");
    }

    /** SIGCONT. */
    void resume() throws Exception {
        signal("CONT");
    }

    private void signal(String sig) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
    }

    String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .header("Authorization", "Bearer " + KEY)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + KEY)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A sample of the node's Prometheus text, e.g. {@code metric("idem_deliveries_total{outcome=\"stale\"")}; 0 when absent. */
    double metric(String nameAndLabels) throws IOException, InterruptedException {
        for (String line : get("/metrics").body().split("\n")) {
            if (line.startsWith(nameAndLabels)) return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return 0;
    }

    @Override
    public void close() throws Exception {
        booted();
        if (!process.isAlive()) return;
        signal("CONT"); // a paused node cannot act on SIGTERM
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
