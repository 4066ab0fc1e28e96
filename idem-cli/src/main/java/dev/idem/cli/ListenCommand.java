package dev.idem.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Durations;
import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxException;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.Outcome;
import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.RedisInbox;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.VerifierMode;
import dev.idem.receiver.Work;
import dev.idem.wire.WebhookHeaders;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idem listen}: a local receiver on the receiver SDK. Every request, on any path, is verified, deduplicated
 * through the inbox and printed as one line, {@code PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>}.
 * Processes given the same {@code --inbox} are replicas of one receiver.
 */
@Command(
        name = "listen",
        mixinStandardHelpOptions = true,
        description = {
            "Run a local webhook receiver that verifies, deduplicates and prints each request.",
            "On any path: the signature is checked, the key is claimed in the inbox, and one line is printed,",
            "PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>. Listeners given the same --inbox are replicas."
        })
public final class ListenCommand implements Callable<Integer> {
    @Option(
            names = "--port",
            defaultValue = "${env:IDEM_LISTEN_PORT:-9000}",
            description = "Port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(
            names = "--host",
            defaultValue = "${env:IDEM_LISTEN_HOST:-127.0.0.1}",
            description = "Address to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--secret",
            split = ",",
            description =
                    "Signing secret(s), whsec_…; without one every request is accepted unverified. Env IDEM_LISTEN_SECRET.")
    List<String> secrets;

    @Option(
            names = "--mode",
            defaultValue = "STANDARD_WEBHOOKS",
            description = "Signature scheme: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    VerifierMode mode;

    @Option(
            names = "--inbox",
            defaultValue = "${env:IDEM_LISTEN_INBOX}",
            description = "jdbc:postgresql:…, jdbc:mariadb:…, jdbc:sqlite:… or redis://host:port (default: in memory).")
    String inbox;

    @Option(
            names = "--fail-rate",
            defaultValue = "0",
            description = "Share of deliveries answered 500 on purpose, 0 to 1 (default ${DEFAULT-VALUE}).")
    double failRate;

    @Option(
            names = "--lease",
            defaultValue = "30s",
            description =
                    "Claim lease: how long a crashed replica's key stays blocked, e.g. 30s, 5m, 2d or PT1H (default ${DEFAULT-VALUE}).")
    String lease;

    @Option(names = "--seed", hidden = true, description = "Seed for --fail-rate, for tests.")
    Long seed;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (Running running = start()) {
            spec.commandLine()
                    .getErr()
                    .println("idem listen: http://" + host + ":" + running.port() + "/ (inbox: " + running.inboxName
                            + ", signatures: " + (running.verified ? mode.name().toLowerCase() : "not checked") + ")");
            spec.commandLine().getErr().flush();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** Starts the receiver; the caller closes it. */
    Running start() throws IOException {
        if (failRate < 0 || failRate > 1)
            throw new CommandLine.ParameterException(spec.commandLine(), "--fail-rate must be between 0 and 1");
        List<String> s = secrets;
        if ((s == null || s.isEmpty()) && System.getenv("IDEM_LISTEN_SECRET") != null)
            s = List.of(System.getenv("IDEM_LISTEN_SECRET").split(","));
        boolean verified = s != null && !s.isEmpty();
        Verifier verifier =
                verified ? mode.verifier(s, Duration.ofMinutes(5), Clock.systemUTC()) : Verifier.acceptAll();
        Duration leaseDuration;
        try {
            leaseDuration = Durations.parse(lease);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--lease: " + e.getMessage());
        }
        Inbox box = openInbox(leaseDuration);
        return new Running(verifier, mode.defaultKeys(), box, describe(inbox), verified);
    }

    private Inbox openInbox(Duration leaseDuration) {
        if (inbox == null || inbox.isBlank()) return new MemoryInbox(Clock.systemUTC(), leaseDuration);
        if (inbox.startsWith("redis://") || inbox.startsWith("rediss://")) {
            try {
                Class.forName("redis.clients.jedis.JedisPooled");
            } catch (ClassNotFoundException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--inbox redis:// needs redis.clients:jedis on the classpath");
            }
            return RedisSupport.open(inbox, leaseDuration);
        }
        if (inbox.startsWith("jdbc:")) {
            HikariDataSource pool;
            try {
                pool = pool(inbox);
            } catch (RuntimeException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--inbox " + describe(inbox) + ": cannot connect: " + rootMessage(e));
            }
            try {
                return new PooledInbox(
                        JdbcInbox.builder(pool).claimLease(leaseDuration).build(), pool);
            } catch (InboxException e) {
                pool.close();
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--inbox " + describe(inbox) + ": " + e.getMessage());
            }
        }
        throw new CommandLine.ParameterException(
                spec.commandLine(), "--inbox must be a jdbc: URL or redis://host:port");
    }

    private static String describe(String url) {
        if (url == null || url.isBlank()) return "memory";
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("//([^:/@]+):[^@/]+@", "//$1:***@");
    }

    /** A running receiver. */
    final class Running implements AutoCloseable {
        private static final String INBOX_FAILED =
                "{\"error\":{\"code\":\"INBOX_UNAVAILABLE\",\"message\":\"inbox failed\"}}";

        private final Receiver receiver;
        private final KeyExtractor keys;
        private final Inbox inbox;
        private final String inboxName;
        private final boolean verified;
        private final Random random;
        private final HttpServer server;
        private final ExecutorService executor;
        private final PrintWriter out;
        private final PrintWriter err;

        Running(Verifier verifier, KeyExtractor keys, Inbox inbox, String inboxName, boolean verified)
                throws IOException {
            // claim → work → mark on every inbox: listen's handler writes nothing, so a transaction would hold nothing
            this.receiver = Receiver.builder(verifier, inbox)
                    .keys(keys)
                    .transactional(false)
                    .build();
            this.keys = keys;
            this.inbox = inbox;
            this.inboxName = inboxName;
            this.verified = verified;
            this.random = seed == null ? new Random() : new Random(seed);
            this.out = spec.commandLine().getOut();
            this.err = spec.commandLine().getErr();
            this.server = HttpServer.create(new InetSocketAddress(host, port), 128);
            this.executor = Executors.newFixedThreadPool(16);
            server.setExecutor(executor);
            server.createContext("/", this::handle);
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        /** The inbox the requests are deduplicated through. */
        Inbox inbox() {
            return inbox;
        }

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                Function<String, String> headers = ex.getRequestHeaders()::getFirst;
                String attempt = headers.apply(WebhookHeaders.ATTEMPT);
                if (attempt == null || attempt.isBlank()) attempt = "-";
                Receipt r;
                try {
                    r = receiver.receive(headers, body, delivery -> {
                        if (failRate > 0 && nextDouble() < failRate) throw new FailOnPurpose();
                        return null;
                    });
                } catch (FailOnPurpose e) {
                    line("REJECTED", keys.extract(headers, body), attempt, "failed on purpose (--fail-rate)");
                    respond(
                            ex,
                            500,
                            "{\"error\":{\"code\":\"FAIL_RATE\",\"message\":\"failed on purpose (--fail-rate)\"}}");
                    return;
                } catch (Exception e) {
                    // e.g. a Redis client error the inbox did not wrap
                    line("REJECTED", keys.extract(headers, body), attempt, "inbox failed: " + e.getMessage());
                    respond(ex, 503, INBOX_FAILED);
                    return;
                }
                // the SDK's standard answers (Receipt.answer) differ in wording; listen keeps its own, unchanged
                switch (r.status()) {
                    case REJECTED -> {
                        line("REJECTED", r.key(), attempt, "bad signature: " + r.reason());
                        respond(ex, 403, "{\"error\":{\"code\":\"BAD_SIGNATURE\",\"message\":\"" + r.reason() + "\"}}");
                    }
                    case UNAVAILABLE -> {
                        line("REJECTED", r.key(), attempt, "inbox failed: " + r.reason());
                        respond(ex, 503, INBOX_FAILED);
                    }
                    case PROCESSED -> {
                        line("PROCESSED", r.key(), attempt, null);
                        respond(ex, 200, "{\"status\":\"processed\"}");
                    }
                    case DUPLICATE -> {
                        line("DUPLICATE", r.key(), attempt, null);
                        respond(ex, 200, "{\"status\":\"duplicate\"}");
                    }
                    case IN_PROGRESS -> {
                        line("REJECTED", r.key(), attempt, "in progress on another replica");
                        ex.getResponseHeaders()
                                .set(
                                        "Retry-After",
                                        Long.toString(Math.max(1, r.retryAfter().toSeconds())));
                        respond(
                                ex,
                                409,
                                "{\"error\":{\"code\":\"IN_PROGRESS\",\"message\":\"another replica is processing this delivery\"}}");
                    }
                }
            } catch (RuntimeException e) {
                StringWriter trace = new StringWriter();
                e.printStackTrace(new PrintWriter(trace));
                synchronized (err) {
                    err.print(trace);
                    err.flush();
                }
                throw e;
            }
        }

        private synchronized double nextDouble() {
            return random.nextDouble();
        }

        private void line(String word, String key, String attempt, String why) {
            synchronized (out) {
                out.println(word + " " + key + " " + attempt);
                out.flush();
            }
            if (why != null) {
                synchronized (err) {
                    err.println("  " + key + ": " + why);
                    err.flush();
                }
            }
        }

        private void respond(HttpExchange ex, int status, String json) throws IOException {
            byte[] b = json.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(status, b.length);
            ex.getResponseBody().write(b);
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (inbox instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing anyway
                }
            }
        }
    }

    /** The handler "failed"; unchecked so the inbox releases the claim. */
    private static final class FailOnPurpose extends RuntimeException {
        FailOnPurpose() {
            super("failed on purpose", null, false, false);
        }
    }

    /** Keeps Jedis out of the class's signature, so the command loads without it. */
    private static final class RedisSupport {
        static Inbox open(String url, Duration lease) {
            return RedisInbox.connect(url, "idem:listen:", lease, DedupWindow.defaults());
        }
    }

    /** The inbox's connections: HikariCP (in the jar for the store anyway); 16 covers the HTTP server's 16 threads. */
    private static HikariDataSource pool(String url) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("idem-listen-inbox");
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(16);
        c.setMinimumIdle(1);
        c.setInitializationFailTimeout(10_000);
        return new HikariDataSource(c);
    }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        return String.valueOf(r.getMessage());
    }

    /** A JDBC inbox and the pool it draws from, closed together. */
    private record PooledInbox(Inbox inner, HikariDataSource pool) implements Inbox, AutoCloseable {
        @Override
        public Duration defaultLease() {
            return inner.defaultLease();
        }

        @Override
        public dev.idem.receiver.ClaimAttempt claim(String key, Duration lease) {
            return inner.claim(key, lease);
        }

        @Override
        public Outcome execute(String key, Duration lease, Work work) throws Exception {
            return inner.execute(key, lease, work);
        }

        @Override
        public int prune(java.time.Instant cutoff, int batchSize) {
            return inner.prune(cutoff, batchSize);
        }

        @Override
        public void close() throws Exception {
            try {
                if (inner instanceof AutoCloseable c) c.close();
            } finally {
                pool.close();
            }
        }
    }
}
