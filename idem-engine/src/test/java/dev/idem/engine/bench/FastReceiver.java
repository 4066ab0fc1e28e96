package dev.idem.engine.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A minimal keep-alive HTTP/1.1 responder for measurements: a thread per connection, answers every request
 * 200 "ok". The JDK's own server serialises reads on one dispatcher thread and would be what is measured.
 */
final class FastReceiver implements AutoCloseable {
    private static final byte[] OK =
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);
    private final ServerSocket server;
    final AtomicLong received = new AtomicLong();
    private final LongConsumer onRequest;

    /** @param onRequest gets the epoch millis of each request's {@code Idem-Scheduled-For}, or -1 */
    FastReceiver(LongConsumer onRequest) throws IOException {
        this.onRequest = onRequest;
        server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fast-receiver-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/hook";
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Thread t = new Thread(() -> serve(s), "fast-receiver");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s;
                InputStream in = new BufferedInputStream(s.getInputStream(), 16384);
                OutputStream out = s.getOutputStream()) {
            StringBuilder line = new StringBuilder();
            while (true) {
                long contentLength = 0;
                long scheduledFor = -1;
                boolean first = true;
                while (true) {
                    line.setLength(0);
                    int c;
                    while ((c = in.read()) != '\n') {
                        if (c < 0) return;
                        if (c != '\r') line.append((char) c);
                    }
                    if (line.length() == 0) {
                        if (first) continue;
                        break;
                    }
                    first = false;
                    String l = line.toString();
                    int colon = l.indexOf(':');
                    if (colon > 0) {
                        String name = l.substring(0, colon).trim();
                        if (name.equalsIgnoreCase("content-length"))
                            contentLength =
                                    Long.parseLong(l.substring(colon + 1).trim());
                        else if (name.equalsIgnoreCase("idem-scheduled-for"))
                            scheduledFor = java.time.Instant.parse(
                                            l.substring(colon + 1).trim())
                                    .toEpochMilli();
                    }
                }
                in.skipNBytes(contentLength);
                onRequest.accept(scheduledFor);
                received.incrementAndGet();
                out.write(OK);
                out.flush();
            }
        } catch (IOException e) {
            // the client closed the connection
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
