package dev.idem.client.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.client.IdemClient;
import dev.idem.client.IdemClientConfig;
import dev.idem.client.outbox.IdemOutbox;
import dev.idem.client.outbox.OutboxRelay;
import java.time.Duration;

/**
 * An outbox relay in its own JVM, for tests that kill it with a signal. Arguments: JDBC URL, table, Idem URL, API key,
 * and optionally the batch size (default 50).
 * It prints {@code RELAYING} once started, then runs until killed.
 */
public final class RelayChild {
    private RelayChild() {}

    public static void main(String[] args) throws Exception {
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[0]);
        cfg.setMaximumPoolSize(2);
        HikariDataSource ds = new HikariDataSource(cfg);
        IdemClient client = IdemClient.create(IdemClientConfig.builder(args[2])
                .apiKey(args[3])
                .maxAttempts(1)
                .requestTimeout(Duration.ofSeconds(30))
                .build());
        OutboxRelay relay = OutboxRelay.builder(
                        IdemOutbox.builder().table(args[1]).build(), ds, client)
                .lease(LEASE)
                .relayId("child")
                .pollInterval(Duration.ofMillis(100))
                .batchSize(args.length > 4 ? Integer.parseInt(args[4]) : 50)
                .build()
                .start();
        System.out.println("RELAYING " + relay.lease());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** The child's lease: longer than its client's worst case (5 s connect + 30 s request). */
    public static final Duration LEASE = Duration.ofSeconds(60);

    /** Starts a child relay with this JVM's class path and returns once it relays; its output is drained in the background. */
    public static Process start(String jdbcUrl, String table, String idemUrl, String apiKey, int batchSize)
            throws java.io.IOException {
        java.util.List<String> cmd = java.util.List.of(
                System.getProperty("java.home") + java.io.File.separator + "bin" + java.io.File.separator + "java",
                "-cp",
                System.getProperty("java.class.path"),
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                RelayChild.class.getName(),
                jdbcUrl,
                table,
                idemUrl,
                apiKey,
                Integer.toString(batchSize));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        java.io.BufferedReader out = new java.io.BufferedReader(
                new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("RELAYING"))
            seen.append(line).append('\n');
        if (line == null) {
            p.destroyForcibly();
            throw new IllegalStateException("the relay child died before relaying:\n" + seen);
        }
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {
                    // keep the pipe from filling
                }
            } catch (java.io.IOException ignored) {
                // the child died
            }
        });
        drain.setDaemon(true);
        drain.start();
        return p;
    }
}
