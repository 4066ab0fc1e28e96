package dev.idem.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cheapest HTTP/1.1 server that serves a webhook sender honestly: blocking sockets, one thread per kept-alive
 * connection (senders keep a few dozen open), the request head and a {@code Content-Length} body read in full, and
 * a fixed {@code 200} with an empty body. No chunked bodies (neither contender sends them), no pipelining.
 * It leaves the CPU to the contender, which matters when the receiver shares a 2-core machine with it.
 */
final class SocketTransport implements AutoCloseable {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BAD = "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);

    /** What the receiver needs of one request. */
    interface Handler {
        void handle(String webhookId, String timestamp, String signature, String scheduledFor, byte[] body);
    }

    private final ServerSocket server;
    private final Handler handler;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    SocketTransport(Handler handler) throws IOException {
        this.handler = handler;
        this.server = new ServerSocket(0, 2048, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "receiver-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                open.add(s);
                Thread t = new Thread(() -> serve(s), "receiver-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) System.err.println("receiver: accept failed: " + e);
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            OutputStream out = socket.getOutputStream();
            StringBuilder line = new StringBuilder(128);
            while (!closed) {
                if (readLine(in, line) == null) return; // the client closed a kept-alive connection
                if (line.length() == 0) continue;
                RequestHead request = new RequestHead();
                while (readLine(in, line) != null && line.length() > 0) {
                    if (!request.header(line)) {
                        out.write(BAD);
                        return;
                    }
                }
                byte[] body = in.readNBytes(request.contentLength);
                if (body.length < request.contentLength) return;
                request.handTo(handler, body);
                out.write(OK);
                out.flush();
                if (request.close) return;
            }
        } catch (java.net.SocketException e) {
            // a client dropping its kept-alive connection (Apache HttpClient closes with a reset) is the normal end
            if (!closed && !String.valueOf(e.getMessage()).contains("Connection reset"))
                System.err.println("receiver: connection failed: " + e);
        } catch (IOException | RuntimeException e) {
            if (!closed) System.err.println("receiver: connection failed: " + e);
        } finally {
            open.remove(socket);
        }
    }

    /** Reads one CRLF-terminated ISO-8859-1 line into {@code line} (without the CRLF); null at end of stream. */
    private static StringBuilder readLine(InputStream in, StringBuilder line) throws IOException {
        line.setLength(0);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int n = line.length();
                if (n > 0 && line.charAt(n - 1) == '\r') line.setLength(n - 1);
                return line;
            }
            line.append((char) c);
        }
        return line.length() == 0 ? null : line;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
