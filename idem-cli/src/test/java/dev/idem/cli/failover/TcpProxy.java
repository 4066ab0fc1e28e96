package dev.idem.cli.failover;

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
 * A TCP proxy on loopback in front of a server (PostgreSQL here), to cut a node off its database: {@link #cut()} resets
 * every connection through it and refuses new ones until {@link #restore()} listens again on the same port.
 */
final class TcpProxy implements AutoCloseable {
    private final InetSocketAddress target;
    private final int port;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;

    TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        ServerSocket s = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.port = s.getLocalPort();
        listen(s);
    }

    int port() {
        return port;
    }

    /** Resets every connection through the proxy and refuses new ones. */
    synchronized void cut() throws IOException {
        listener.close();
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0); // RST, as a broken network or a terminated backend shows it
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        open.clear();
    }

    /** Accepts connections again on the same port. */
    synchronized void restore() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        listen(s);
    }

    private void listen(ServerSocket s) {
        listener = s;
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try {
                    Socket client = s.accept();
                    Socket server = new Socket(target.getAddress(), target.getPort());
                    open.add(client);
                    open.add(server);
                    pipe(client, server);
                    pipe(server, client);
                } catch (IOException e) {
                    // closed by cut(), or the target refused: the client sees its connection end
                }
            }
        }, "tcp-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) out.write(buf, 0, n);
            } catch (IOException ignored) {
                // one side closed or was reset
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
