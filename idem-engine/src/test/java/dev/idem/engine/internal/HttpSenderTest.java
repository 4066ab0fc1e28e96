package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.EndpointGuard;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The sender against raw loopback sockets, where the server's misbehaviour is exact. */
class HttpSenderTest {
    private final AtomicInteger connections = new AtomicInteger();
    private ServerSocket server;
    private HttpSender sender;

    @AfterEach
    void tearDown() throws IOException {
        if (sender != null) sender.close();
        if (server != null) server.close();
    }

    /** Serves every connection with {@code script}, request after request, until the peer closes. */
    private String serve(Script script) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    Thread c = new Thread(() -> {
                        try (s) {
                            while (readRequest(s.getInputStream())) script.answer(s.getOutputStream());
                        } catch (IOException | InterruptedException e) {
                            // the client went away
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return "http://127.0.0.1:" + server.getLocalPort() + "/hook";
    }

    interface Script {
        void answer(OutputStream out) throws IOException, InterruptedException;
    }

    /** Reads one request's head and Content-Length body; false at end of stream. */
    private static boolean readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            head.write(b);
            byte[] h = head.toByteArray();
            int n = h.length;
            if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') break;
        }
        if (b == -1) return false;
        int length = 0;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n"))
            if (line.toLowerCase().startsWith("content-length:"))
                length = Integer.parseInt(line.substring(15).trim());
        in.readNBytes(length);
        return true;
    }

    private static DeliveryRequest request(String url) {
        return new DeliveryRequest(
                url,
                Map.of("Content-Type", "application/json", "webhook-id", "dlv_1"),
                "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    }

    /** Sends and waits for the callback; an aborted exchange is an {@link InterruptedException}, as the engine treats it. */
    private AttemptResult send(DeliveryRequest request, Duration timeout) throws InterruptedException {
        CompletableFuture<AttemptResult> result = new CompletableFuture<>();
        sender.send(request, timeout, new HttpSender.Callback() {
            @Override
            public void completed(AttemptResult r) {
                result.complete(r);
            }

            @Override
            public void aborted() {
                result.completeExceptionally(new InterruptedException("aborted"));
            }
        });
        try {
            return result.get(2, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw (InterruptedException) e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no callback within 2 minutes", e);
        }
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    @Test
    void aBodyThatTricklesInPastTheDeadlineIsATimeout() throws Exception {
        String url = serve(out -> {
            write(out, "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n");
            for (int i = 0; i < 100; i++) {
                Thread.sleep(100); // each byte arrives well inside the per-read timeout, the whole body does not
                write(out, "x");
            }
        });
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult r = send(request(url), Duration.ofMillis(600));

        assertThat(r.succeeded()).isFalse();
        assertThat(r.error()).startsWith("timeout");
        assertThat(r.durationMs()).isBetween(500L, 3000L);
        assertThat(r.congestion()).as("a response timeout is the path's").isEqualTo(AttemptResult.Congestion.DROP);
    }

    @Test
    void aRefusedConnectionIsTheHostsTroubleNotThePaths() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult r = send(request("http://127.0.0.1:" + port + "/hook"), Duration.ofSeconds(5));

        assertThat(r.succeeded()).isFalse();
        assertThat(r.error()).startsWith("connection failed: could not connect to 127.0.0.1:" + port);
        assertThat(r.congestion()).isEqualTo(AttemptResult.Congestion.UNREACHABLE);
    }

    @Test
    void aFiveHundredIsThePathsTroubleA429AsksToSlowDownAndOtherStatusesAreAnswers() throws Exception {
        java.util.Queue<Integer> statuses =
                new java.util.concurrent.ConcurrentLinkedQueue<>(java.util.List.of(500, 503, 504, 429, 404, 200));
        String url = serve(out -> write(out, "HTTP/1.1 " + statuses.poll() + " X\r\ncontent-length: 0\r\n\r\n"));
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        java.util.List<AttemptResult.Congestion> signals = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++)
            signals.add(send(request(url), Duration.ofSeconds(5)).congestion());

        assertThat(signals)
                .containsExactly(
                        AttemptResult.Congestion.SERVER_ERROR,
                        AttemptResult.Congestion.SERVER_ERROR,
                        AttemptResult.Congestion.SERVER_ERROR,
                        AttemptResult.Congestion.BACK_OFF,
                        AttemptResult.Congestion.ANSWER,
                        AttemptResult.Congestion.ANSWER);
    }

    @Test
    void theFirstKibOfAResponseIsKeptAndASmallBodyLeavesTheConnectionForTheNextRequest() throws Exception {
        String body = "y".repeat(3000);
        String url = serve(out -> write(
                out, "HTTP/1.1 500 Internal Server Error\r\ncontent-length: " + body.length() + "\r\n\r\n" + body));
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult first = send(request(url), Duration.ofSeconds(5));
        // the callback may run a moment before the client puts the connection back in its pool
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> sender.idleConnections() == 1);
        AttemptResult second = send(request(url), Duration.ofSeconds(5));

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(first.error()).isEqualTo("HTTP 500");
        assertThat(first.responseBody()).hasSize(1024).isEqualTo("y".repeat(1024));
        assertThat(second.statusCode()).isEqualTo(500);
        assertThat(connections.get()).isEqualTo(1);
    }

    @Test
    void aHugeBodyIsNotReadToTheEndTheConnectionIsDroppedInstead() throws Exception {
        int huge = 50 * 1024 * 1024;
        String url = serve(out -> {
            write(out, "HTTP/1.1 200 OK\r\ncontent-length: " + huge + "\r\n\r\n");
            byte[] chunk = new byte[64 * 1024];
            java.util.Arrays.fill(chunk, (byte) 'z');
            for (int sent = 0; sent < huge; sent += chunk.length) out.write(chunk);
        });
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult first = send(request(url), Duration.ofSeconds(20));
        AttemptResult second = send(request(url), Duration.ofSeconds(20));

        assertThat(first.error()).isNull();
        assertThat(first.responseBody()).hasSize(1024);
        assertThat(second.succeeded()).isTrue();
        assertThat(connections.get())
                .as("the first connection was dropped, not drained")
                .isEqualTo(2);
    }

    @Test
    void abortingEndsASendBlockedOnASilentReceiverAtOnce() throws Exception {
        String url = serve(out -> Thread.sleep(60_000));
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);
        CompletableFuture<AttemptResult> send = CompletableFuture.supplyAsync(() -> {
            try {
                return send(request(url), Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (connections.get() == 0 && System.nanoTime() < deadline) Thread.sleep(5);
        Thread.sleep(100);

        long t0 = System.nanoTime();
        sender.abortInFlight();

        assertThatThrownBy(() -> send.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(2000);
    }

    @Test
    void aNameThatPassedTheCheckButResolvesInsideWhenConnectingIsRefusedWithoutConnecting() throws Exception {
        serve(out -> write(out, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
        int port = server.getLocalPort();
        AtomicInteger lookups = new AtomicInteger();
        // DNS rebinding: the first answer is public, every later one points at loopback
        EndpointGuard guard = EndpointGuard.of(false, host -> new InetAddress[] {
            lookups.getAndIncrement() == 0 ? InetAddress.getByName("93.184.215.14") : InetAddress.getLoopbackAddress()
        });
        sender = new HttpSender(guard, Clock.systemUTC(), 4);

        AttemptResult r = send(request("http://rebind.example:" + port + "/hook"), Duration.ofSeconds(5));

        assertThat(r.succeeded()).isFalse();
        assertThat(r.error()).startsWith("endpoint refused at connect").contains("loopback");
        assertThat(lookups.get()).isEqualTo(2);
        assertThat(connections.get()).isZero();
    }

    @Test
    void aHeaderValueWithALineBreakIsNotSent() throws Exception {
        String url = serve(out -> write(out, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"));
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult r = send(
                new DeliveryRequest(url, Map.of("X-Evil", "a\r\nHost: other"), new byte[0]), Duration.ofSeconds(5));

        assertThat(r.sent()).isFalse();
        assertThat(r.error()).startsWith("header 'X-Evil' cannot be sent");
        assertThat(connections.get()).isZero();
    }

    @Test
    void anHttpsReceiverWithAnUntrustedCertificateIsAFailedTlsHandshakeNotADelivery(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // a self-signed certificate, made by the JDK's own keytool: no trust store here knows it
        java.nio.file.Path store = dir.resolve("receiver.p12");
        Process keytool = new ProcessBuilder(
                        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "receiver",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "2",
                        "-dname",
                        "CN=127.0.0.1",
                        "-ext",
                        "SAN=ip:127.0.0.1",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue())
                .as(new String(keytool.getInputStream().readAllBytes()))
                .isZero();
        java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
        try (var in = java.nio.file.Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        javax.net.ssl.KeyManagerFactory kmf =
                javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(
                new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
        AtomicInteger handled = new AtomicInteger();
        https.createContext("/", ex -> {
            handled.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        https.start();
        try {
            sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

            AttemptResult r = send(
                    request("https://127.0.0.1:" + https.getAddress().getPort() + "/hook"), Duration.ofSeconds(10));

            assertThat(r.succeeded()).isFalse();
            assertThat(r.statusCode()).isNull();
            assertThat(r.error())
                    .startsWith(
                            "TLS handshake with 127.0.0.1:" + https.getAddress().getPort() + " failed");
            assertThat(r.congestion()).as("no connection: the host's").isEqualTo(AttemptResult.Congestion.UNREACHABLE);
            assertThat(handled.get())
                    .as("no request reached the receiver's handler")
                    .isZero();
        } finally {
            https.stop(0);
        }
    }

    @Test
    void aKeptAliveConnectionTheReceiverClosedWhileIdleDoesNotFailTheNextAttempt() throws Exception {
        // the receiver answers one request per connection and then closes it, without saying so (no Connection: close)
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        AtomicInteger closed = new AtomicInteger();
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    connections.incrementAndGet();
                    if (readRequest(s.getInputStream()))
                        write(s.getOutputStream(), "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
                } catch (IOException e) {
                    return;
                }
                closed.incrementAndGet();
            }
        });
        t.setDaemon(true);
        t.start();
        String url = "http://127.0.0.1:" + server.getLocalPort() + "/hook";
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult first = send(request(url), Duration.ofSeconds(5));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> closed.get() == 1);
        AttemptResult second = send(request(url), Duration.ofSeconds(5));

        assertThat(first.error()).isNull();
        assertThat(second.error())
                .as("sent on the pooled connection the receiver had closed")
                .isNull();
        assertThat(connections.get()).isEqualTo(2);
    }

    @Test
    void aReceiverThatClosesWithoutAnsweringGetsEachAttemptExactlyOnce() throws Exception {
        // reads the whole request, then closes the connection without a byte of response
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        AtomicInteger requests = new AtomicInteger();
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    connections.incrementAndGet();
                    if (readRequest(s.getInputStream())) requests.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        String url = "http://127.0.0.1:" + server.getLocalPort() + "/hook";
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        for (int attempt = 1; attempt <= 3; attempt++) {
            AttemptResult r = send(request(url), Duration.ofSeconds(5));
            assertThat(r.succeeded()).isFalse();
            assertThat(r.error())
                    .isEqualTo("I/O error talking to 127.0.0.1:" + server.getLocalPort()
                            + ": the connection closed without a response");
            assertThat(r.congestion()).isEqualTo(AttemptResult.Congestion.DROP);
            int expected = attempt;
            org.awaitility.Awaitility.await()
                    .pollDelay(Duration.ofMillis(200))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> requests.get() >= expected);
            assertThat(requests.get())
                    .as("requests the receiver read after attempt " + attempt)
                    .isEqualTo(attempt);
        }
    }

    @Test
    void anEndpointPortOutOfRangeIsAFailedAttemptNotAnException() throws Exception {
        sender = new HttpSender(EndpointGuard.of(true), Clock.systemUTC(), 4);

        AttemptResult r = send(request("http://127.0.0.1:99999/x"), Duration.ofSeconds(5));

        assertThat(r.succeeded()).isFalse();
        assertThat(r.sent()).isFalse();
        assertThat(r.error()).isEqualTo("endpoint refused: endpoint port must be between 1 and 65535, got 99999");
    }
}
