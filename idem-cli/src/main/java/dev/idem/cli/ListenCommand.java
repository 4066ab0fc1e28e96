package dev.idem.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.receiver.DedupWindow;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxException;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.Outcome;
import dev.idem.receiver.RedisInbox;
import dev.idem.receiver.Verification;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.VerifierMode;
import dev.idem.wire.WebhookHeaders;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idem listen}: a local receiver on the receiver SDK. Every request, on any path, is verified, deduplicated
 * through the inbox and printed as one line, {@code PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>}.
 * Processes given the same {@code --inbox} are replicas of one receiver.
 */
@Command(name = "listen", mixinStandardHelpOptions = true,
        description = {"Run a local webhook receiver: verify, dedup through the inbox, print one line per request:",
                "PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>."})
public final class ListenCommand implements Callable<Integer> {
    @Option(names = "--port", defaultValue = "${env:IDEM_LISTEN_PORT:-9000}", description = "Port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;
    @Option(names = "--host", defaultValue = "${env:IDEM_LISTEN_HOST:-127.0.0.1}", description = "Address to bind (default ${DEFAULT-VALUE}).")
    String host;
    @Option(names = "--secret", split = ",", description = "Signing secret(s), whsec_…; without one every request is accepted unverified. Env IDEM_LISTEN_SECRET.")
    List<String> secrets;
    @Option(names = "--mode", defaultValue = "STANDARD_WEBHOOKS", description = "Signature scheme: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    VerifierMode mode;
    @Option(names = "--inbox", defaultValue = "${env:IDEM_LISTEN_INBOX}", description = "jdbc:postgresql:…, jdbc:mariadb:…, jdbc:sqlite:… or redis://host:port (default: in memory).")
    String inbox;
    @Option(names = "--fail-rate", defaultValue = "0", description = "Share of deliveries answered 500 on purpose, 0 to 1 (default ${DEFAULT-VALUE}).")
    double failRate;
    @Option(names = "--lease", defaultValue = "30s", description = "Claim lease: how long a crashed replica's key stays blocked (default ${DEFAULT-VALUE}).")
    String lease;
    @Option(names = "--seed", hidden = true, description = "Seed for --fail-rate, for tests.")
    Long seed;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (Running running = start()) {
            spec.commandLine().getErr().println("idem listen: http://" + host + ":" + running.port() + "/ (inbox: "
                    + running.inboxName + ", signatures: " + (running.verified ? mode.name().toLowerCase() : "not checked") + ")");
            spec.commandLine().getErr().flush();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** Starts the receiver; the caller closes it. */
    Running start() throws IOException {
        if (failRate < 0 || failRate > 1) throw new CommandLine.ParameterException(spec.commandLine(), "--fail-rate must be between 0 and 1");
        List<String> s = secrets;
        if ((s == null || s.isEmpty()) && System.getenv("IDEM_LISTEN_SECRET") != null) s = List.of(System.getenv("IDEM_LISTEN_SECRET").split(","));
        boolean verified = s != null && !s.isEmpty();
        Verifier verifier = verified ? mode.verifier(s, Duration.ofMinutes(5), Clock.systemUTC()) : Verifier.acceptAll();
        Duration leaseDuration = parseDuration(lease);
        Inbox box = openInbox(leaseDuration);
        return new Running(verifier, mode.defaultKeys(), box, describe(inbox), verified);
    }

    private Inbox openInbox(Duration leaseDuration) {
        if (inbox == null || inbox.isBlank()) return new MemoryInbox(Clock.systemUTC(), leaseDuration);
        if (inbox.startsWith("redis://") || inbox.startsWith("rediss://")) {
            try {
                Class.forName("redis.clients.jedis.JedisPooled");
            } catch (ClassNotFoundException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--inbox redis:// needs redis.clients:jedis on the classpath");
            }
            return RedisSupport.open(inbox, leaseDuration);
        }
        if (inbox.startsWith("jdbc:")) {
            try {
                return JdbcInbox.builder(new UrlDataSource(inbox, 16)).claimLease(leaseDuration).build();
            } catch (InboxException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--inbox " + describe(inbox) + ": " + e.getMessage());
            }
        }
        throw new CommandLine.ParameterException(spec.commandLine(), "--inbox must be a jdbc: URL or redis://host:port");
    }

    private static String describe(String url) {
        if (url == null || url.isBlank()) return "memory";
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***").replaceAll("//([^:/@]+):[^@/]+@", "//$1:***@");
    }

    static Duration parseDuration(String s) {
        String t = s.trim().toLowerCase();
        if (t.startsWith("p")) return Duration.parse(t.toUpperCase());
        long n = Long.parseLong(t.replaceAll("[a-z]+$", ""));
        if (t.endsWith("ms")) return Duration.ofMillis(n);
        if (t.endsWith("s")) return Duration.ofSeconds(n);
        if (t.endsWith("m")) return Duration.ofMinutes(n);
        if (t.endsWith("h")) return Duration.ofHours(n);
        return Duration.ofSeconds(n);
    }

    /** A running receiver. */
    final class Running implements AutoCloseable {
        private final Verifier verifier;
        private final KeyExtractor keys;
        private final Inbox inbox;
        private final String inboxName;
        private final boolean verified;
        private final Random random;
        private final HttpServer server;
        private final ExecutorService executor;
        private final PrintWriter out;
        private final PrintWriter err;

        Running(Verifier verifier, KeyExtractor keys, Inbox inbox, String inboxName, boolean verified) throws IOException {
            this.verifier = verifier;
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

        private void handle(HttpExchange ex) throws IOException {
            try (ex) {
                byte[] body = ex.getRequestBody().readAllBytes();
                Function<String, String> headers = ex.getRequestHeaders()::getFirst;
                String key = keys.extract(headers, body);
                String attempt = headers.apply(WebhookHeaders.ATTEMPT);
                if (attempt == null || attempt.isBlank()) attempt = "-";
                Verification v = verifier.verify(headers, body);
                if (!v.valid()) {
                    line("REJECTED", key, attempt, "bad signature: " + v.reason());
                    respond(ex, 403, "{\"error\":{\"code\":\"BAD_SIGNATURE\",\"message\":\"" + v.reason() + "\"}}");
                    return;
                }
                Outcome o;
                try {
                    o = inbox.execute(key, () -> {
                        if (failRate > 0 && nextDouble() < failRate) throw new FailOnPurpose();
                        return null;
                    });
                } catch (FailOnPurpose e) {
                    line("REJECTED", key, attempt, "failed on purpose (--fail-rate)");
                    respond(ex, 500, "{\"error\":{\"code\":\"FAIL_RATE\",\"message\":\"failed on purpose (--fail-rate)\"}}");
                    return;
                } catch (Exception e) {
                    line("REJECTED", key, attempt, "inbox failed: " + e.getMessage());
                    respond(ex, 503, "{\"error\":{\"code\":\"INBOX_UNAVAILABLE\",\"message\":\"inbox failed\"}}");
                    return;
                }
                switch (o.status()) {
                    case PROCESSED -> {
                        line("PROCESSED", key, attempt, null);
                        respond(ex, 200, "{\"status\":\"processed\"}");
                    }
                    case DUPLICATE -> {
                        line("DUPLICATE", key, attempt, null);
                        respond(ex, 200, "{\"status\":\"duplicate\"}");
                    }
                    case IN_PROGRESS -> {
                        line("REJECTED", key, attempt, "in progress on another replica");
                        ex.getResponseHeaders().set("Retry-After", Long.toString(Math.max(1, o.retryAfter().toSeconds())));
                        respond(ex, 409, "{\"error\":{\"code\":\"IN_PROGRESS\",\"message\":\"another replica is processing this delivery\"}}");
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

    /** A small pool over DriverManager: listen needs no pool library. */
    static final class UrlDataSource implements DataSource {
        private final String url;
        private final BlockingQueue<Connection> idle;

        UrlDataSource(String url, int size) {
            this.url = url;
            this.idle = new ArrayBlockingQueue<>(size);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection c = idle.poll();
            while (c != null && !c.isValid(2)) {
                c = idle.poll();
            }
            Connection real = c != null ? c : DriverManager.getConnection(url);
            boolean[] closed = {false};
            return (Connection) java.lang.reflect.Proxy.newProxyInstance(UrlDataSource.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (p, m, a) -> {
                        if (m.getName().equals("close")) {
                            if (!closed[0]) {
                                closed[0] = true;
                                if (!real.getAutoCommit()) {
                                    real.rollback();
                                    real.setAutoCommit(true);
                                }
                                if (!idle.offer(real)) real.close();
                            }
                            return null;
                        }
                        if (m.getName().equals("isClosed")) return closed[0] || real.isClosed();
                        try {
                            return m.invoke(real, a);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public java.util.logging.Logger getParentLogger() {
            return java.util.logging.Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
