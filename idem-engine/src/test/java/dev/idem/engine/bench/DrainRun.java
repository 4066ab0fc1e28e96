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
import java.util.concurrent.atomic.AtomicLong;

/**
 * A manual drain measurement, not a test: N one-shot deliveries due at once on a fresh PostgreSQL database,
 * one engine, a minimal loopback receiver. {@code DrainRun [n] [maxInFlight] [batch]}.
 */
public final class DrainRun {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : EngineConfig.DEFAULT_BATCH;
        System.setProperty("sun.net.httpserver.nodelay", "true");
        Clock clock = Clock.systemUTC();
        FastReceiver server = new FastReceiver(due -> {});
        AtomicLong received = server.received;
        String url = server.url();
        try (TestDatabase db = TestStores.postgresDatabase()) {
            Store store = JdbcStores.open(db.config().withDatabaseClock(true).withPoolSize(16), clock);
            World world = new World(store, clock);
            long t0 = System.nanoTime();
            world.createMany(Defs.once(url, clock.instant()), n);
            System.out.printf("created %d due deliveries in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
            EngineConfig config = EngineConfig.builder()
                    .nodeId("bench")
                    .maxInFlight(threads)
                    .batchSize(batch)
                    .allowPrivateEndpoints(true)
                    .build();
            Engine engine = new Engine(store, config, clock, new SecureRandom(), new SimpleMeterRegistry());
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long start = System.nanoTime();
            engine.start();
            engine.wakeUp();
            while (store.queue().depth() > 0) Thread.sleep(20);
            long ms = Math.max(1, (System.nanoTime() - start) / 1_000_000);
            long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
            System.out.printf(
                    "drained %d (received %d) in %d ms: %.0f deliveries/s (max in flight %d, batch %d); "
                            + "this JVM (engine + receiver) used %d ms CPU, %.1f us per delivery; load average %.1f%n",
                    n,
                    received.get(),
                    ms,
                    n * 1000.0 / ms,
                    threads,
                    batch,
                    cpuMs,
                    cpuMs * 1000.0 / n,
                    os.getSystemLoadAverage());
            engine.close();
            store.close();
        } finally {
            server.close();
            System.exit(0);
        }
    }
}
