package dev.idem.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * Messages at a set rate, each to {@code fanout} endpoints: {@code POST /v1/messages} sent on a schedule (message i
 * at {@code i / rate} seconds, from {@code conns} connections, so a server that falls behind shows as an accepted
 * rate under the target), then the wait for every delivery at a receiver of its own. Prints the accepted rate and
 * latency, and the deliveries' rate from the first send to the last delivery. A message's deliveries to its endpoints
 * share its webhook id, so the receiver counts requests and distinct ids (messages), not deliveries per endpoint.
 */
final class MessagesPhase {
    private MessagesPhase() {}

    static String run(
            CloseableHttpClient http, String url, String key, String what, int rate, int seconds, int fanout, int conns)
            throws Exception {
        try (Receiver receiver = new Receiver(false, 16)) {
            for (int e = 0; e < fanout; e++)
                post(http, url + "/v1/endpoints", key, "{\"url\":\"" + receiver.url() + "?e=" + e + "\"}", 201);
            int n = rate * seconds;
            Receiver.Tally tally = receiver.begin((long) n * fanout, null);
            Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
            AtomicInteger next = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(conns);
            long t0 = System.nanoTime();
            try {
                List<Future<?>> parts = new ArrayList<>();
                for (int c = 0; c < conns; c++)
                    parts.add(pool.submit(() -> {
                        for (int i; (i = next.getAndIncrement()) < n; ) {
                            long due = t0 + (long) (i * 1e9 / rate);
                            long wait = due - System.nanoTime();
                            if (wait > 0) LockSupport.parkNanos(wait);
                            long s = System.nanoTime();
                            post(
                                    http,
                                    url + "/v1/messages",
                                    key,
                                    "{\"event_type\":\"order.paid\",\"payload\":{\"order\":" + i
                                            + ",\"amount\":4200,\"currency\":\"eur\"}}",
                                    201);
                            long us = (System.nanoTime() - s) / 1000;
                            synchronized (h) {
                                h.recordValue(Math.min(us, h.getHighestTrackableValue()));
                            }
                        }
                        return null;
                    }));
                for (Future<?> f : parts) f.get();
            } finally {
                pool.shutdownNow();
            }
            long sent = System.nanoTime() - t0;
            long expected = (long) n * fanout;
            long lastSeen = -1;
            long quietSince = System.nanoTime();
            while (tally.requests() < expected && System.nanoTime() - quietSince < TimeUnit.SECONDS.toNanos(20)) {
                Thread.sleep(100);
                long now = tally.requests();
                if (now != lastSeen) {
                    lastSeen = now;
                    quietSince = System.nanoTime();
                }
            }
            long done = System.nanoTime() - t0;
            return String.format(
                    "%s %,d messages x %d endpoints, target %,d/s: accepted in %.2f s = %,.0f messages/s; latency"
                            + " p50 %.2f ms, p99 %.2f ms, max %.2f ms | delivered %,d of %,d (%,d messages' webhook ids seen) in"
                            + " %.2f s from the first send = %,.0f deliveries/s",
                    what,
                    n,
                    fanout,
                    rate,
                    sent / 1e9,
                    n / (sent / 1e9),
                    h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0,
                    h.getMaxValue() / 1000.0,
                    tally.requests(),
                    expected,
                    tally.unique(),
                    done / 1e9,
                    tally.requests() / (done / 1e9));
        }
    }

    static void post(CloseableHttpClient http, String url, String key, String json, int status) throws Exception {
        HttpPost post = new HttpPost(url);
        post.addHeader("Authorization", "Bearer " + key);
        post.setEntity(new ByteArrayEntity(json.getBytes(StandardCharsets.UTF_8), ContentType.APPLICATION_JSON));
        String bad = http.execute(
                post, r -> r.getCode() == status ? null : r.getCode() + " " + EntityUtils.toString(r.getEntity()));
        if (bad != null) throw new IllegalStateException(url + " answered " + bad);
    }
}
