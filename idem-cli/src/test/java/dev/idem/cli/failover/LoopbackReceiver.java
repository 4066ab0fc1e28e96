package dev.idem.cli.failover;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * A webhook receiver on loopback that answers each request after a delay of the test's choosing (a thread per request,
 * so hundreds may wait at once) and records when each attempt of each delivery arrived.
 */
final class LoopbackReceiver implements AutoCloseable {
    /** One request as it arrived: its delivery ({@code webhook-id}), attempt number and arrival (System.nanoTime). */
    record Hit(String deliveryId, int attempt, long arrivedNanos) {}

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "receiver");
        t.setDaemon(true);
        return t;
    });
    private final List<Hit> hits = new CopyOnWriteArrayList<>();
    private volatile ToLongFunction<Hit> delayMillis;

    LoopbackReceiver(Duration answerAfter) throws IOException {
        this.delayMillis = h -> answerAfter.toMillis();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.createContext("/", ex -> {
            try (ex) {
                ex.getRequestBody().readAllBytes();
                Hit hit = new Hit(
                        ex.getRequestHeaders().getFirst("webhook-id"),
                        Integer.parseInt(ex.getRequestHeaders().getFirst("Idem-Attempt")),
                        System.nanoTime());
                hits.add(hit);
                long delay = delayMillis.applyAsLong(hit);
                if (delay > 0) Thread.sleep(delay);
                ex.sendResponseHeaders(200, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.setExecutor(threads);
        server.start();
    }

    /** How long to wait before answering a request (attempts may differ). */
    void answerAfter(ToLongFunction<Hit> delayMillis) {
        this.delayMillis = delayMillis;
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    }

    List<Hit> hits() {
        return List.copyOf(hits);
    }

    /** Attempt numbers of each delivery, in arrival order. */
    Map<String, List<Integer>> attemptsByDelivery() {
        return hits.stream()
                .collect(Collectors.groupingBy(Hit::deliveryId, Collectors.mapping(Hit::attempt, Collectors.toList())));
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
