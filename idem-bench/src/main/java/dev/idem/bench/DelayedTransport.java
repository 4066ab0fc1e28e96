package dev.idem.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * The slow receiver's HTTP/1.1 server: answers each request {@code 200} (empty body) a fixed delay after reading it,
 * with one selector thread reading every connection and one timer thread writing the answers, so thousands of
 * connections each waiting for its answer cost no thread each. It parses what {@link SocketTransport} parses (the
 * head, read by the same {@link RequestHead}, a {@code Content-Length} body, no chunked bodies, no pipelining) and
 * hands the same fields to the handler.
 *
 * <p>Why not the JDK's {@code com.sun.net.httpserver}, which the slow phase used before: measured per thread on the
 * 5,000-to-a-250-ms-receiver phase, its dispatcher, workers and timer cost 114 µs of CPU per request (a {@code Date}
 * header formatted per answer, the channel re-registered with the selector after each exchange), twice the socket
 * receiver's 52 µs per request on the fast phase; in the benchmark's JVM that is CPU taken from the contender under
 * test.
 */
final class DelayedTransport implements AutoCloseable {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocketChannel server;
    private final Selector selector;
    private final SocketTransport.Handler handler;
    private final long delayNanos;
    /** Answers not written yet, in the order they fall due (one delay for all: arrival order is due order). */
    private final ArrayDeque<Due> due = new ArrayDeque<>();

    private final Thread reader;
    private final Thread timer;
    private volatile boolean closed;

    private record Due(long atNanos, SocketChannel channel, boolean close) {}

    /** One connection's unparsed bytes. */
    private static final class Conn {
        ByteBuffer in = ByteBuffer.allocate(4096);
    }

    DelayedTransport(Duration delay, SocketTransport.Handler handler) throws IOException {
        this.handler = handler;
        this.delayNanos = delay.toNanos();
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8192);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        reader = daemon(this::select, "receiver-select");
        timer = daemon(this::answer, "receiver-timer");
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    int port() {
        return server.socket().getLocalPort();
    }

    private void select() {
        while (!closed) {
            try {
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) continue;
                    if (key.isAcceptable()) accept();
                    else if (key.isReadable()) read(key);
                }
                selector.selectedKeys().clear();
            } catch (IOException | RuntimeException e) {
                if (!closed) System.err.println("receiver: select failed: " + e);
            }
        }
        try {
            for (SelectionKey k : selector.keys()) k.channel().close();
            selector.close();
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        }
    }

    private void accept() throws IOException {
        SocketChannel c;
        while ((c = server.accept()) != null) {
            c.configureBlocking(false);
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.register(selector, SelectionKey.OP_READ, new Conn());
        }
    }

    private void read(SelectionKey key) {
        SocketChannel c = (SocketChannel) key.channel();
        Conn conn = (Conn) key.attachment();
        try {
            if (!conn.in.hasRemaining()) {
                ByteBuffer bigger = ByteBuffer.allocate(conn.in.capacity() * 2);
                conn.in.flip();
                conn.in = bigger.put(conn.in);
            }
            if (c.read(conn.in) < 0) {
                // the client closed a kept-alive connection
                key.cancel();
                c.close();
                return;
            }
            while (parseOne(c, conn)) {
                // one request per call; the client sends the next only after its answer, but a close may follow
            }
        } catch (IOException | RuntimeException e) {
            key.cancel();
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            if (!closed && !String.valueOf(e.getMessage()).contains("Connection reset"))
                System.err.println("receiver: connection failed: " + e);
        }
    }

    /** Takes one complete request off the buffer, hands it over and queues its answer; false when none is complete. */
    private boolean parseOne(SocketChannel c, Conn conn) throws IOException {
        ByteBuffer b = conn.in;
        int end = headEnd(b.array(), b.position());
        if (end < 0) return false;
        String head = new String(b.array(), 0, end, StandardCharsets.ISO_8859_1);
        RequestHead request = new RequestHead();
        String[] lines = head.split("\r\n");
        for (int i = 1; i < lines.length; i++)
            if (!request.header(lines[i])) throw new IOException("chunked bodies are not supported");
        int total = end + 4 + request.contentLength;
        if (b.position() < total) {
            if (b.capacity() < total) {
                ByteBuffer bigger = ByteBuffer.allocate(total);
                b.flip();
                conn.in = bigger.put(b);
            }
            return false;
        }
        byte[] body = java.util.Arrays.copyOfRange(b.array(), end + 4, total);
        b.flip().position(total);
        b.compact();
        request.handTo(handler, body);
        synchronized (due) {
            due.add(new Due(System.nanoTime() + delayNanos, c, request.close));
            if (due.size() == 1) due.notify();
        }
        return true;
    }

    /** Where the head ends ({@code \r\n\r\n}), or -1. */
    private static int headEnd(byte[] a, int limit) {
        for (int i = 0; i + 3 < limit; i++)
            if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') return i;
        return -1;
    }

    private void answer() {
        while (!closed) {
            Due d;
            try {
                synchronized (due) {
                    while (due.isEmpty()) due.wait();
                    d = due.peek();
                    long wait = d.atNanos() - System.nanoTime();
                    if (wait > 0) {
                        due.wait(Math.max(1, wait / 1_000_000), 0);
                        continue;
                    }
                    due.poll();
                }
            } catch (InterruptedException e) {
                return;
            }
            write(d);
        }
    }

    private static void write(Due d) {
        try {
            ByteBuffer out = ByteBuffer.wrap(OK);
            // 38 bytes into an idle connection's empty send buffer: written at once in practice
            for (int tries = 0; out.hasRemaining() && tries < 1000; tries++)
                if (d.channel().write(out) == 0) Thread.onSpinWait();
            if (d.close()) d.channel().close();
        } catch (IOException e) {
            // the sender gave up on this request (its timeout): the connection is gone
        }
    }

    @Override
    public void close() {
        closed = true;
        timer.interrupt();
        selector.wakeup();
        try {
            reader.join(5_000); // it closes the connections and the selector on its way out
            server.close();
        } catch (IOException | InterruptedException ignored) {
            // closing anyway
        }
    }
}
