package dev.idem.engine.bench;

import dev.idem.core.store.Store;
import dev.idem.engine.Engine;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.World;
import dev.idem.store.JdbcStores;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A manual lag measurement, not a test: deliveries due at a steady rate on PostgreSQL, lag from each one's due
 * time to its arrival at a loopback receiver. {@code SteadyRun [perSecond] [seconds]}.
 */
public final class SteadyRun {
    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int n = rate * seconds;
        System.setProperty("sun.net.httpserver.nodelay", "true");
        Clock clock = Clock.systemUTC();
        long[] lags = new long[n];
        AtomicInteger received = new AtomicInteger();
        FastReceiver server = new FastReceiver(due -> {
            long now = System.currentTimeMillis();
            int i = received.getAndIncrement();
            if (i < n) lags[i] = now - due;
        });
        String url = server.url();
        try (TestDatabase db = TestStores.postgresDatabase()) {
            Store store = JdbcStores.open(db.config().withDatabaseClock(true).withPoolSize(16), clock);
            World world = new World(store, clock);
            // deliveries written ahead (as the API does for occurrences due
            // soon): this measures dispatch, not materialising
            Instant start = clock.instant().plusSeconds(40 + n / 2000);
            java.util.List<dev.idem.core.ScheduleDefinition> defs = new java.util.ArrayList<>(n);
            for (int j = 0; j < n; j++) defs.add(Defs.once(url, start.plusNanos(j * 1_000_000_000L / rate)));
            world.createEach(defs);
            if (clock.instant().plusSeconds(35).isAfter(start))
                System.out.println("warning: creating took longer than the head start");
            EngineConfig config = EngineConfig.builder()
                    .nodeId("steady")
                    .allowPrivateEndpoints(true)
                    .build();
            Engine engine = new Engine(store, config, clock, new SecureRandom(), new SimpleMeterRegistry());
            engine.start();
            while (received.get() < n) Thread.sleep(50);
            long[] sorted = Arrays.copyOf(lags, n);
            Arrays.sort(sorted);
            System.out.printf(
                    "%d deliveries at %d/s: lag ms p50 %d, p90 %d, p99 %d, p99.9 %d, max %d; load average %.1f%n",
                    n,
                    rate,
                    sorted[n / 2],
                    sorted[n * 9 / 10],
                    sorted[n * 99 / 100],
                    sorted[n * 999 / 1000],
                    sorted[n - 1],
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                            .getSystemLoadAverage());
            engine.close();
            store.close();
        } finally {
            server.close();
            System.exit(0);
        }
    }
}
