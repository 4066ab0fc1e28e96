package dev.idem.client.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/** A loopback webhook receiver that answers 200 to everything and counts what it got. */
public final class Receiver implements AutoCloseable {
    private final HttpServer server;
    private final AtomicInteger received = new AtomicInteger();

    public Receiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            received.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    public int received() {
        return received.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
