package dev.idem.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * API clients as a user's application would run them: {@code clients} threads, each on its own kept-alive HTTP/1.1
 * connection ({@link PooledHttp}), posting request bodies as fast as the server answers. Every answer must
 * be the expected status; anything else fails the run.
 */
final class ApiLoad implements AutoCloseable {
    private final String base;
    private final String apiKey;
    private final PooledHttp http;

    ApiLoad(String base, String apiKey, int connections) {
        this.base = base;
        this.apiKey = apiKey;
        this.http = new PooledHttp(connections);
    }

    /** What a run of posts took. */
    record Run(int requests, long nanos, int items) {
        double itemsPerSecond() {
            return items / (nanos / 1e9);
        }
    }

    /** Posts every body to {@code path} from {@code clients} threads; each answer must be {@code status}. */
    Run post(String path, List<byte[]> bodies, int clients, int status, int itemsPerBody) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicLong bad = new AtomicLong();
        StringBuilder firstBad = new StringBuilder();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int c = 0; c < clients; c++)
                parts.add(pool.submit(() -> {
                    for (int i; (i = next.getAndIncrement()) < bodies.size(); ) {
                        HttpPost post = new HttpPost(base + path);
                        post.addHeader("Authorization", "Bearer " + apiKey);
                        post.setEntity(new ByteArrayEntity(bodies.get(i), ContentType.APPLICATION_JSON));
                        String answer = http.client.execute(
                                post,
                                r -> r.getCode() == status
                                        ? null
                                        : r.getCode() + " " + EntityUtils.toString(r.getEntity()));
                        if (answer != null && bad.getAndIncrement() == 0)
                            synchronized (firstBad) {
                                firstBad.append(answer);
                            }
                    }
                    return null;
                }));
            for (Future<?> f : parts) f.get();
        } finally {
            pool.shutdownNow();
        }
        long nanos = System.nanoTime() - t0;
        if (bad.get() > 0)
            throw new IllegalStateException(bad.get() + " requests to " + path + " failed, the first: " + firstBad);
        return new Run(bodies.size(), nanos, bodies.size() * itemsPerBody);
    }

    /** The bodies joined into batch bodies of {@code size}: {@code {"schedules":[…]}}. */
    static List<byte[]> batches(List<byte[]> bodies, int size) {
        List<byte[]> out = new ArrayList<>();
        for (int from = 0; from < bodies.size(); from += size) {
            StringBuilder b = new StringBuilder("{\"schedules\":[");
            for (int i = from; i < Math.min(bodies.size(), from + size); i++) {
                if (i > from) b.append(',');
                b.append(new String(bodies.get(i), StandardCharsets.UTF_8));
            }
            out.add(b.append("]}").toString().getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        http.close();
    }
}
