package dev.idem.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.wire.SigningSecret;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Fan-out through {@code POST /v1/messages} on a real node (PostgreSQL, its engine with the production defaults), to
 * the loopback {@link FanoutReceiver}. Each phase has a fresh database and node:
 *
 * <ol>
 *   <li><b>wide</b>: {@code --endpoints} endpoints (each on its own loopback host, {@code 127.0.x.y}) subscribed to one
 *       event type; one message, {@code --repeat} times: the time to accept (the {@code 201}, after the commit of the
 *       message and every delivery) and the time until the first and the last endpoint received it.</li>
 *   <li><b>hanging</b>: {@code --rate} messages a second for {@code --seconds}, each to {@code --fanout} endpoints on
 *       as many hosts, one of which reads every request and never answers; the other endpoints' lag (arrival minus
 *       the instant the message was due to be sent, so a slow accept counts too).</li>
 *   <li><b>same-host</b>: the same with every endpoint on one host and port, different paths.</li>
 * </ol>
 *
 * Every answered delivery is counted by (endpoint, message): each must arrive exactly once. Run: {@code java
 * -XX:+UseParallelGC -cp idem-bench/target/idem-bench.jar dev.idem.bench.FanoutRun [--seconds 60] [--rate 200]
 * [--fanout 10] [--endpoints 1000] [--repeat 3] [--phases wide,hanging,same-host] [--db idem_bench_fanout]}.
 */
public final class FanoutRun {
    static final ObjectMapper JSON = new ObjectMapper();
    private final Map<String, String> opt;
    private final FanoutReceiver receiver;
    private final BenchOptions base;
    private final Postgres postgres;
    private boolean allExact = true;

    private FanoutRun(Map<String, String> opt, FanoutReceiver receiver) {
        this.opt = opt;
        this.receiver = receiver;
        this.base = BenchOptions.parse(new String[] {"--db", opt.get("db")});
        this.postgres = new Postgres(base);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new LinkedHashMap<>();
        opt.put("endpoints", "1000");
        opt.put("repeat", "3");
        opt.put("rate", "200");
        opt.put("seconds", "60");
        opt.put("fanout", "10");
        opt.put("phases", "wide,hanging,same-host");
        opt.put("drain", "120");
        opt.put("wire", "20000");
        opt.put("db", "idem_bench_fanout");
        for (int i = 0; i < args.length; i++) {
            String name = args[i].replaceFirst("^--", "");
            if (name.equals("help") || !opt.containsKey(name) || i + 1 >= args.length) {
                System.out.println("options (default): " + opt);
                System.exit(name.equals("help") ? 0 : 2);
            }
            opt.put(name, args[++i]);
        }
        System.out.println(Bench.environment() + " | options " + opt);
        boolean exact;
        try (FanoutReceiver receiver = new FanoutReceiver()) {
            FanoutRun run = new FanoutRun(opt, receiver);
            if (num("wire", opt) > 0) run.wire(num("wire", opt));
            for (String phase : opt.get("phases").split(",")) {
                switch (phase.trim()) {
                    case "wide" -> run.wide();
                    case "hanging" -> run.steady(false);
                    case "same-host" -> run.steady(true);
                    default -> throw new IllegalArgumentException("unknown phase " + phase);
                }
            }
            exact = run.allExact;
        }
        System.out.println(exact ? "every delivery arrived exactly once" : "NOT every delivery arrived exactly once");
        System.exit(exact ? 0 : 1);
    }

    private static int num(String name, Map<String, String> opt) {
        return Integer.parseInt(opt.get(name));
    }

    private int num(String name) {
        return num(name, opt);
    }

    /** The machine's ceiling without a database: 64 threads POSTing straight at the receiver's answered paths. */
    private void wire(int n) throws Exception {
        FanoutReceiver.Tally tally = receiver.begin(Map.of());
        try (PooledHttp http = new PooledHttp(64)) {
            AtomicInteger next = new AtomicInteger();
            List<String> urls = new ArrayList<>();
            for (int k = 0; k < 10; k++) urls.add(receiver.url("127.0.0." + (k + 1), "/ep/" + k));
            long t0 = System.nanoTime();
            runOn(64, () -> {
                for (int i; (i = next.getAndIncrement()) < n; )
                    http.post(
                            urls.get(i % urls.size()),
                            "{}",
                            Map.of("webhook-id", "wire_" + i, "Idem-Endpoint-Id", "w"));
            });
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf(
                    "== wire ceiling (no database): %,d POSTs from 64 threads to 10 loopback hosts: %,.0f/s; %,d received%n",
                    n, n / s, tally.unique());
        }
    }

    /** One message to {@code --endpoints} endpoints, {@code --repeat} times. */
    private void wide() throws Exception {
        int n = num("endpoints");
        System.out.printf(
                "== one message to %,d subscribed endpoints, each on its own loopback host (%s)%n", n, MassDue.load());
        try (FanoutNode node = new FanoutNode(postgres, base, opt.get("db"))) {
            List<String> urls = new ArrayList<>();
            for (int i = 0; i < n; i++)
                urls.add(receiver.url("127.0." + (1 + i / 250) + "." + (1 + i % 250), "/ep/" + i));
            long c0 = System.nanoTime();
            Map<String, SigningSecret> secrets = node.endpoints(urls, "bench.wide");
            System.out.printf("  %,d endpoints created in %.1f s%n", n, (System.nanoTime() - c0) / 1e9);
            for (int r = 1; r <= num("repeat"); r++) {
                FanoutReceiver.Tally tally = receiver.begin(secrets);
                CpuUse cpu0 = CpuUse.sample();
                long t0 = System.nanoTime();
                JsonNode m = node.send("bench.wide", "{\"run\":" + r + "}");
                long accepted = System.nanoTime() - t0;
                long deadline = t0 + TimeUnit.SECONDS.toNanos(num("drain"));
                while (tally.unique() < n && System.nanoTime() < deadline) Thread.sleep(5);
                CpuUse.Span cpu = cpu0.until(CpuUse.sample());
                Thread.sleep(500); // a duplicate arriving just after the last would still be counted
                boolean exact = m.path("deliveries").asInt() == n
                        && tally.unique() == n
                        && tally.duplicates.get() == 0
                        && tally.badSignatures.get() == 0;
                allExact &= exact;
                System.out.printf(
                        "  run %d: accepted (201, %d deliveries) in %.1f ms; first delivery +%.1f ms, last +%.1f ms after"
                                + " sending; %,d of %d received, %d duplicates, %d signatures verified, %d bad: %s%n",
                        r,
                        m.path("deliveries").asInt(),
                        accepted / 1e6,
                        (tally.firstNanos.get() - t0) / 1e6,
                        (tally.lastNanos.get() - t0) / 1e6,
                        tally.unique(),
                        n,
                        tally.duplicates.get(),
                        tally.verified.get(),
                        tally.badSignatures.get(),
                        exact ? "exactly once" : "NOT exactly once");
                System.out.println("      " + cpu.describe(n));
            }
        }
    }

    /** {@code --rate} messages a second for {@code --seconds} to {@code --fanout} endpoints, the last one hanging. */
    private void steady(boolean sameHost) throws Exception {
        int rate = num("rate");
        int seconds = num("seconds");
        int fanout = num("fanout");
        int messages = rate * seconds;
        int healthy = fanout - 1;
        System.out.printf(
                "== %d messages/s for %d s to %d endpoints each (%,d deliveries/s), one hanging; %s (%s)%n",
                rate,
                seconds,
                fanout,
                rate * fanout,
                sameHost ? "every endpoint on one host and port, different paths" : "each endpoint on its own host",
                MassDue.load());
        receiver.hangAgain();
        try (FanoutNode node = new FanoutNode(postgres, base, opt.get("db"))) {
            List<String> urls = new ArrayList<>();
            for (int k = 0; k < fanout; k++)
                urls.add(receiver.url(
                        sameHost ? "127.0.0.1" : "127.0.0." + (k + 1), (k == fanout - 1 ? "/hang/" : "/ep/") + k));
            Map<String, SigningSecret> secrets = node.endpoints(urls, "bench.steady");
            FanoutReceiver.Tally tally = receiver.begin(secrets);
            Map<String, Long> dueOf = new ConcurrentHashMap<>();
            Map<String, Long> acceptedAt = new ConcurrentHashMap<>();
            Histogram accept = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            AtomicLong refused = new AtomicLong();
            AtomicLong wrongFanout = new AtomicLong();
            ExecutorService senders = Executors.newFixedThreadPool(32);
            CpuUse cpu0 = CpuUse.sample();
            long t0 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            for (int i = 0; i < messages; i++) {
                long due = t0 + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) LockSupport.parkNanos(wait);
                int seq = i;
                senders.execute(() -> {
                    try {
                        JsonNode m = node.send("bench.steady", "{\"seq\":" + seq + "}");
                        long done = System.nanoTime();
                        dueOf.put(m.path("id").asText(), due);
                        acceptedAt.put(m.path("id").asText(), done);
                        if (m.path("deliveries").asInt() != fanout) wrongFanout.incrementAndGet();
                        synchronized (accept) {
                            accept.recordValue(Math.min((done - due) / 1000, accept.getHighestTrackableValue()));
                        }
                    } catch (Exception e) {
                        refused.incrementAndGet();
                    }
                });
            }
            senders.shutdown();
            if (!senders.awaitTermination(60, TimeUnit.MINUTES))
                throw new IllegalStateException("the messages were not all sent within an hour");
            long lastDue = t0 + (messages - 1) * 1_000_000_000L / rate;
            long expected = (long) messages * healthy;
            // on a machine too slow for the rate, sending ends after the last due time: the drain counts from then
            long deadline = Math.max(lastDue, System.nanoTime()) + TimeUnit.SECONDS.toNanos(num("drain"));
            while (tally.unique() < expected && System.nanoTime() < deadline) Thread.sleep(20);
            CpuUse.Span cpu = cpu0.until(CpuUse.sample());
            Thread.sleep(500);
            Histogram lag = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            Histogram afterAccept = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
            long unmatched = 0;
            for (FanoutReceiver.Arrival a : tally.arrivals) {
                Long due = dueOf.get(a.messageId());
                if (due == null) unmatched++;
                else {
                    lag.recordValue(Math.max(0, Math.min((a.nanos() - due) / 1000, lag.getHighestTrackableValue())));
                    // a delivery may arrive before its 201 is read: those count as 0
                    long fromAccept = a.nanos() - acceptedAt.get(a.messageId());
                    afterAccept.recordValue(
                            Math.max(0, Math.min(fromAccept / 1000, afterAccept.getHighestTrackableValue())));
                }
            }
            boolean exact = tally.unique() == expected
                    && tally.duplicates.get() == 0
                    && refused.get() == 0
                    && wrongFanout.get() == 0
                    && unmatched == 0
                    && tally.badSignatures.get() == 0;
            allExact &= exact;
            System.out.printf(
                    "  sent %,d messages (%d refused, %d not fanned out to %d); accept (201) after due ms: %s%n",
                    messages, refused.get(), wrongFanout.get(), fanout, Report.lag(accept));
            System.out.printf(
                    "  the %d healthy endpoints: %,d of %,d deliveries, %d duplicates, %d signatures verified, %d bad: %s;"
                            + " last arrived %.2f s after the last message was due%n",
                    healthy,
                    tally.unique(),
                    expected,
                    tally.duplicates.get(),
                    tally.verified.get(),
                    tally.badSignatures.get(),
                    exact ? "exactly once" : "NOT exactly once",
                    (tally.lastNanos.get() - lastDue) / 1e9);
            System.out.printf("      lag (due to send -> arrival) ms: %s%n", Report.lag(lag));
            System.out.printf("      after the 201 (accepted -> arrival) ms: %s%n", Report.lag(afterAccept));
            System.out.printf(
                    "  the hanging endpoint: %,d requests read, none answered%n", tally.hangingRequests.get());
            System.out.println("      " + cpu.describe((int) Math.max(1, tally.unique())));
            receiver.release();
        }
    }

    private static void runOn(int threads, ThrowingRunnable work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++)
                parts.add(pool.submit(() -> {
                    work.run();
                    return null;
                }));
            for (Future<?> f : parts) f.get();
        } finally {
            pool.shutdownNow();
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
