package dev.idem.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.idem.receiver.Inbox;
import dev.idem.receiver.KeyExtractor;
import dev.idem.receiver.Receipt;
import dev.idem.receiver.Receiver;
import dev.idem.receiver.Verifier;
import dev.idem.wire.WebhookHeaders;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine;

/** A running {@code idem listen}: the HTTP server, and per request verify, dedup, forward, print, answer. */
final class ListenServer implements AutoCloseable {
    /** What the command line set. */
    record Options(String host, int port, double failRate, Long seed, ListenPrint print, ListenForward forward) {}

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
    private final ListenForward forward;
    private final ListenPrint print;
    private final double failRate;

    ListenServer(
            Verifier verifier,
            KeyExtractor keys,
            Inbox inbox,
            String inboxName,
            boolean verified,
            Options options,
            CommandLine cli)
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
        this.forward = options.forward();
        this.print = options.print();
        this.failRate = options.failRate();
        this.random = options.seed() == null ? new Random() : new Random(options.seed());
        this.out = cli.getOut();
        this.err = cli.getErr();
        this.server = HttpServer.create(new InetSocketAddress(options.host(), options.port()), 128);
        this.executor = Executors.newFixedThreadPool(16);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    String inboxName() {
        return inboxName;
    }

    boolean verified() {
        return verified;
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
            String details = print.describe(ex.getRequestHeaders(), body);
            ListenForward.Answer[] app = new ListenForward.Answer[1];
            Receipt r;
            try {
                r = receiver.receive(headers, body, delivery -> {
                    if (failRate > 0 && nextDouble() < failRate) throw new FailOnPurpose();
                    if (forward != null) {
                        app[0] = forwarded(ex, body);
                        // not a success: the claim is released, so the sender's retry is forwarded again
                        if (!app[0].succeeded()) throw new AppFailed();
                    }
                    return null;
                });
            } catch (AppFailed e) {
                line(details, "REJECTED", keys.extract(headers, body), attempt + " -> " + app[0].status(), null);
                respond(ex, app[0]);
                return;
            } catch (AppUnreachable e) {
                line(
                        details,
                        "REJECTED",
                        keys.extract(headers, body),
                        attempt + " -> unreachable",
                        forward.target() + " did not answer: " + e.getMessage());
                respond(
                        ex,
                        502,
                        "{\"error\":{\"code\":\"APP_UNREACHABLE\",\"message\":\"idem listen could not reach "
                                + forward.target() + "\"}}");
                return;
            } catch (FailOnPurpose e) {
                line(details, "REJECTED", keys.extract(headers, body), attempt, "failed on purpose (--fail-rate)");
                respond(
                        ex,
                        500,
                        "{\"error\":{\"code\":\"FAIL_RATE\",\"message\":\"failed on purpose (--fail-rate)\"}}");
                return;
            } catch (Exception e) {
                // e.g. a Redis client error the inbox did not wrap
                line(details, "REJECTED", keys.extract(headers, body), attempt, "inbox failed: " + e.getMessage());
                respond(ex, 503, INBOX_FAILED);
                return;
            }
            // the SDK's standard answers (Receipt.answer) differ in wording; listen keeps its own, unchanged
            switch (r.status()) {
                case REJECTED -> {
                    line(details, "REJECTED", r.key(), attempt, "bad signature: " + r.reason());
                    respond(ex, 403, "{\"error\":{\"code\":\"BAD_SIGNATURE\",\"message\":\"" + r.reason() + "\"}}");
                }
                case UNAVAILABLE -> {
                    line(details, "REJECTED", r.key(), attempt, "inbox failed: " + r.reason());
                    respond(ex, 503, INBOX_FAILED);
                }
                case PROCESSED -> {
                    if (app[0] == null) {
                        line(details, "PROCESSED", r.key(), attempt, null);
                        respond(ex, 200, "{\"status\":\"processed\"}");
                    } else {
                        line(details, "PROCESSED", r.key(), attempt + " -> " + app[0].status(), null);
                        respond(ex, app[0]);
                    }
                }
                case DUPLICATE -> {
                    line(details, "DUPLICATE", r.key(), attempt, null);
                    respond(ex, 200, "{\"status\":\"duplicate\"}");
                }
                case IN_PROGRESS -> {
                    line(details, "REJECTED", r.key(), attempt, "in progress on another replica");
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

    /** One request's line, what --print shows of it, and on stderr why it was refused. */
    private void line(String details, String word, String key, String attempt, String why) {
        synchronized (out) {
            out.println(word + " " + key + " " + attempt);
            out.print(details);
            out.flush();
        }
        if (why != null) {
            synchronized (err) {
                err.println("  " + key + ": " + why);
                err.flush();
            }
        }
    }

    /** Sends the request on to the application; no answer from it is an {@link AppUnreachable}. */
    private ListenForward.Answer forwarded(HttpExchange ex, byte[] body) throws InterruptedException {
        try {
            return forward.send(ex.getRequestMethod(), ex.getRequestHeaders(), body);
        } catch (IOException e) {
            throw new AppUnreachable(e);
        }
    }

    /** Idem gets the application's answer: its status, headers and body. */
    private void respond(HttpExchange ex, ListenForward.Answer app) throws IOException {
        app.headers().forEach((name, values) -> {
            if (name != null && ListenForward.forwarded(name))
                ex.getResponseHeaders().put(name, values);
        });
        ex.sendResponseHeaders(app.status(), app.body().length == 0 ? -1 : app.body().length);
        ex.getResponseBody().write(app.body());
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

    /** The application answered, but not with a 2xx: unchecked so the inbox releases the claim. */
    private static final class AppFailed extends RuntimeException {
        AppFailed() {
            super("the application refused", null, false, false);
        }
    }

    /** The application did not answer at all. */
    private static final class AppUnreachable extends RuntimeException {
        AppUnreachable(IOException cause) {
            super(
                    cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage(),
                    cause,
                    false,
                    false);
        }
    }

    /** The handler "failed"; unchecked so the inbox releases the claim. */
    private static final class FailOnPurpose extends RuntimeException {
        FailOnPurpose() {
            super("failed on purpose", null, false, false);
        }
    }
}
