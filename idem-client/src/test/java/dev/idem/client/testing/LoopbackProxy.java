package dev.idem.client.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on loopback in front of a real HTTP server, to break the wire where a test says:
 * <ul>
 *   <li>{@link #dropNextAnswers(int)}: forward the request, wait until the server starts answering (so it has
 *       committed), then close the connection without passing a byte of the answer on: "the node died between the
 *       request and its answer", as the caller sees it;</li>
 *   <li>{@link #holdRequests()} / {@link #releaseRequests()}: accept connections but pass no request byte on until released;</li>
 *   <li>{@link #holdAnswers()} / {@link #releaseAnswers()}: pass requests on, but keep the server's answers until released
 *       (the caller can be killed in between: the server committed, the caller never heard);</li>
 *   <li>{@link #upstream(int)}: point at another port (a restarted node); a closed upstream refuses the caller.</li>
 * </ul>
 * It records every request line and {@code Idempotency-Key} it forwards, read from the bytes on the wire.
 */
public final class LoopbackProxy implements AutoCloseable {
    private static final Pattern REQUEST_LINE = Pattern.compile("(GET|POST|PATCH|PUT|DELETE) (\\S+) HTTP/1\\.1");
    private final ServerSocket server;
    private volatile int upstreamPort;
    private final AtomicInteger dropsPending = new AtomicInteger();
    private final AtomicInteger answersDropped = new AtomicInteger();
    private final AtomicInteger answersForwarded = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean refuseAfterDrop;
    private volatile boolean refusing;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private volatile CountDownLatch answerGate = new CountDownLatch(0);
    private final AtomicInteger answersArrived = new AtomicInteger();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    /** A request as it went through: method, path and its {@code Idempotency-Key} (null when it had none). */
    public record Request(String method, String path, String idempotencyKey) {}

    public LoopbackProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "loopback-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port();
    }

    public void upstream(int port) {
        this.upstreamPort = port;
        this.refusing = false;
    }

    /** The next {@code n} answers are lost after the server started sending them. */
    public void dropNextAnswers(int n) {
        dropsPending.set(n);
    }

    /**
     * The next answer is lost, and from that moment on every connection is refused until {@link #upstream(int)}
     * names a server again: the caller's retries cannot reach the node that committed before the test restarts it.
     */
    public void dropNextAnswerThenRefuse() {
        refuseAfterDrop = true;
        dropsPending.set(1);
    }

    public void holdRequests() {
        gate = new CountDownLatch(1);
    }

    public void releaseRequests() {
        gate.countDown();
    }

    public void holdAnswers() {
        answerGate = new CountDownLatch(1);
    }

    public void releaseAnswers() {
        answerGate.countDown();
    }

    /** Reads from the server, forwarded, held or dropped. */
    public int answersArrived() {
        return answersArrived.get();
    }

    public int answersDropped() {
        return answersDropped.get();
    }

    /** Reads from the server passed on to the caller (a long answer may count more than once). */
    public int answersForwarded() {
        return answersForwarded.get();
    }

    /** Callers whose connection was closed at once because the server could not be reached. */
    public int connectionsRefused() {
        return refused.get();
    }

    public List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** The requests that carried {@code key}. */
    public List<Request> requestsWithKey(String key) {
        return requests().stream().filter(r -> key.equals(r.idempotencyKey())).toList();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket caller = server.accept();
                open.add(caller);
                Thread t = new Thread(() -> serve(caller), "loopback-proxy-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket caller) {
        Socket upstream;
        if (refusing) {
            refused.incrementAndGet();
            closeQuietly(caller);
            return;
        }
        try {
            upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        } catch (IOException down) {
            refused.incrementAndGet();
            closeQuietly(caller);
            return;
        }
        open.add(upstream);
        Thread up = new Thread(() -> pumpRequests(caller, upstream), "loopback-proxy-up");
        up.setDaemon(true);
        up.start();
        pumpAnswers(upstream, caller);
    }

    private void pumpRequests(Socket caller, Socket upstream) {
        StringBuilder pending = new StringBuilder();
        Request[] current = {null};
        byte[] buf = new byte[16384];
        try (InputStream in = caller.getInputStream();
                OutputStream out = upstream.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                gate.await();
                sniff(pending, new String(buf, 0, n, StandardCharsets.ISO_8859_1), current);
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // either side closed: the other pump ends too
        } finally {
            closeQuietly(caller);
            closeQuietly(upstream);
        }
    }

    private void pumpAnswers(Socket upstream, Socket caller) {
        byte[] buf = new byte[16384];
        try (InputStream in = upstream.getInputStream();
                OutputStream out = caller.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                answersArrived.incrementAndGet();
                answerGate.await();
                if (dropsPending.getAndUpdate(d -> Math.max(0, d - 1)) > 0) {
                    if (refuseAfterDrop) {
                        refusing = true; // before the caller can see the connection end and retry
                        refuseAfterDrop = false;
                    }
                    answersDropped.incrementAndGet();
                    return;
                }
                out.write(buf, 0, n);
                out.flush();
                answersForwarded.incrementAndGet();
            }
        } catch (IOException | InterruptedException e) {
            // closed
        } finally {
            closeQuietly(caller);
            closeQuietly(upstream);
        }
    }

    /** Finds request lines and Idempotency-Key headers in the bytes going up, line by line. */
    private void sniff(StringBuilder pending, String chunk, Request[] current) {
        pending.append(chunk);
        int nl;
        while ((nl = pending.indexOf("\n")) >= 0) {
            String line = pending.substring(0, nl).replace("\r", "");
            pending.delete(0, nl + 1);
            Matcher m = REQUEST_LINE.matcher(line);
            if (m.find()) {
                current[0] = new Request(m.group(1), m.group(2), null);
                synchronized (requests) {
                    requests.add(current[0]);
                }
            } else if (current[0] != null && line.regionMatches(true, 0, "Idempotency-Key:", 0, 16)) {
                Request withKey = new Request(
                        current[0].method(),
                        current[0].path(),
                        line.substring(16).trim());
                synchronized (requests) {
                    requests.set(requests.lastIndexOf(current[0]), withKey);
                }
                current[0] = withKey;
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        gate.countDown();
        answerGate.countDown();
        for (Socket s : new ArrayList<>(open)) closeQuietly(s);
    }
}
