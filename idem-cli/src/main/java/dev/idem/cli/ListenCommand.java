package dev.idem.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Durations;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.InboxException;
import dev.idem.receiver.JdbcInbox;
import dev.idem.receiver.MemoryInbox;
import dev.idem.receiver.Verifier;
import dev.idem.receiver.VerifierMode;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idem listen}: a local receiver on the receiver SDK. Every request, on any path, is verified, deduplicated
 * through the inbox and printed as one line, {@code PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>}, with
 * {@code --print} its headers and body under it. With {@code --forward-to} a verified first-seen request goes on to the
 * developer's application ({@link ListenForward}) and its answer goes back to Idem; the line ends {@code -> <status>}.
 * Processes given the same {@code --inbox} are replicas of one receiver.
 */
@Command(
        name = "listen",
        mixinStandardHelpOptions = true,
        description = {
            "Run a local webhook receiver that verifies, deduplicates and prints each request.",
            "On any path: the signature is checked, the key is claimed in the inbox, and one line is printed,",
            "PROCESSED|DUPLICATE|REJECTED <idempotency-key> <attempt>. Listeners given the same --inbox are replicas.",
            "--forward-to sends each verified, first-seen request on to your application and answers Idem with its answer."
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

    @Option(
            names = "--print",
            defaultValue = "none",
            converter = ListenPrint.Converter.class,
            paramLabel = "headers|body|all",
            description = "Also print each request's headers, body, or all, under its line (default ${DEFAULT-VALUE}).")
    ListenPrint print;

    @Option(
            names = "--forward-to",
            description =
                    "Forward each verified, first-seen request to your application (method, headers and body "
                            + "as they came), print its status, and answer Idem with its answer: e.g. http://localhost:3000/hooks.")
    String forwardTo;

    @Option(names = "--seed", hidden = true, description = "Seed for --fail-rate, for tests.")
    Long seed;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (ListenServer running = start()) {
            spec.commandLine()
                    .getErr()
                    .println("idem listen: http://" + host + ":" + running.port() + "/ (inbox: " + running.inboxName()
                            + ", signatures: "
                            + (running.verified() ? mode.name().toLowerCase() : "not checked")
                            + (forwardTo == null ? "" : ", forwarding to " + forwardTo.strip()) + ")");
            spec.commandLine().getErr().flush();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** Starts the receiver; the caller closes it. */
    ListenServer start() throws IOException {
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
        ListenForward forward;
        try {
            forward = forwardTo == null ? null : ListenForward.to(forwardTo);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Inbox box = openInbox(leaseDuration);
        var options = new ListenServer.Options(host, port, failRate, seed, print, forward);
        return new ListenServer(
                verifier, mode.defaultKeys(), box, describe(inbox), verified, options, spec.commandLine());
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
            return ListenInboxes.redis(inbox, leaseDuration);
        }
        if (inbox.startsWith("jdbc:")) {
            HikariDataSource pool;
            try {
                pool = ListenInboxes.pool(inbox);
            } catch (RuntimeException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--inbox " + describe(inbox) + ": cannot connect: " + rootMessage(e));
            }
            try {
                return new ListenInboxes.PooledInbox(
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
        return dev.idem.store.StoreConfig.redact(url);
    }

    private static String rootMessage(Throwable t) {
        Throwable r = t;
        while (r.getCause() != null && r.getCause() != r) r = r.getCause();
        return String.valueOf(r.getMessage());
    }
}
