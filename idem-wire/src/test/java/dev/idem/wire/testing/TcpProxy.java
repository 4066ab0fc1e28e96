package dev.idem.wire.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL in the store-trouble and failover tests), to cut a node
 * off it: {@link #cut()} resets every connection through it and refuses new ones, as a broken network or a database
 * that went away shows it, until {@link #restore()} listens again on the same port.
 */
public final class TcpProxy implements AutoCloseable {
    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private ServerSocket listener; // null while cut; guarded by this

    /** A proxy to {@code target}, listening on a free loopback port ({@link #port()}). */
    public TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        ServerSocket s = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.port = s.getLocalPort();
        synchronized (this) {
            listen(s);
        }
    }

    public int port() {
        return port;
    }

    /** Resets every connection through the proxy and refuses new ones; a second cut does nothing. */
    public synchronized void cut() {
        if (listener == null) return;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        listener = null;
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0); // RST, as a broken network or a terminated backend shows it
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(s);
        }
        open.clear();
    }

    /** Accepts connections again on the same port; does nothing while not cut. */
    public synchronized void restore() throws IOException {
        if (listener != null) return;
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        listen(s);
    }

    private void listen(ServerSocket s) {
        listener = s;
        Thread accept = new Thread(() -> acceptLoop(s), "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException closed) {
                return;
            }
            synchronized (this) {
                if (listener != s) { // cut while this one was being accepted: it must not outlive the cut
                    closeQuietly(client);
                    return;
                }
                Socket upstream;
                try {
                    upstream = new Socket(target.getAddress(), target.getPort());
                } catch (IOException refused) {
                    closeQuietly(client); // the target refused: the client sees its connection end
                    continue;
                }
                open.add(client);
                open.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int n; (n = in.read(buf)) >= 0; ) out.write(buf, 0, n);
                    } catch (IOException ended) {
                        // one side closed or was reset
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        open.remove(from);
                        open.remove(to);
                    }
                },
                "tcp-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        cut();
    }
}
