package dev.idem.server.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL here) that a test can stop and start again on the same
 * port: stopped, it refuses new connections and cuts the open ones, as a database that went away would.
 */
final class TcpProxy implements AutoCloseable {
    private final int targetPort;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private ServerSocket server;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            this.port = probe.getLocalPort();
        }
        start();
    }

    int port() {
        return port;
    }

    synchronized void start() throws IOException {
        if (server != null) return;
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress("127.0.0.1", port));
        server = s;
        Thread accept = new Thread(() -> acceptLoop(s), "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** Refuses new connections and cuts every open one. */
    synchronized void stop() {
        if (server == null) return;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        server = null;
        for (Socket s : open) closeQuietly(s);
        open.clear();
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
                if (server != s) { // stopped while this one was being accepted: it must not outlive the stop
                    closeQuietly(client);
                    return;
                }
                Socket upstream;
                try {
                    upstream = new Socket("127.0.0.1", targetPort);
                } catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                open.add(client);
                open.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ended) {
                // either side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pump");
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
        stop();
    }
}
