package dev.idem.engine.bench;

import dev.idem.core.Delivery;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.store.Store;
import dev.idem.engine.Engine;
import dev.idem.engine.EngineConfig;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A manual measurement, not a test: what one attempt in flight costs the engine's JVM in heap. The hanging receivers
 * run in a child JVM (so their side of each exchange is not counted); one engine on SQLite sends to them until
 * {@code destinations × 64} attempts hang, and the heap after a full GC is compared with the heap before, the same
 * engine idle. {@code InFlightMemory [destinations]} (default 100: 6,400 attempts). See idem-engine/README.md.
 */
public final class InFlightMemory {
    private InFlightMemory() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--receivers")) {
            receivers(Integer.parseInt(args[1]));
            return;
        }
        int destinations = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int each = dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT;
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx2g",
                        "-cp",
                        System.getProperty("java.class.path"),
                        InFlightMemory.class.getName(),
                        "--receivers",
                        Integer.toString(destinations))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> urls = new ArrayList<>();
        try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream()))) {
            for (int i = 0; i < destinations; i++) urls.add(in.readLine());
            Path dir = Files.createTempDirectory("idem-inflight");
            Clock clock = Clock.systemUTC();
            try (Store store = TestStores.sqlite(dir, clock)) {
                World world = new World(store, clock);
                List<ScheduleDefinition> defs = new ArrayList<>();
                for (String url : urls)
                    for (int j = 0; j < each; j++)
                        defs.add(Defs.retry(
                                Defs.once(url, clock.instant()), RetryPolicy.DEFAULT, Duration.ofSeconds(60), 0));
                List<Delivery> all = world.createEach(defs);
                Engine engine = new Engine(
                        store,
                        EngineConfig.builder()
                                .nodeId("memory")
                                .allowPrivateEndpoints(true)
                                .shutdownGrace(Duration.ZERO)
                                .build(),
                        clock,
                        new SplittableRandom(1),
                        new SimpleMeterRegistry());
                long idle = heapAfterGc();
                engine.start();
                engine.wakeUp();
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while (engine.attemptsInFlight() < all.size() && System.nanoTime() < deadline) Thread.sleep(100);
                Thread.sleep(2000);
                int inFlight = engine.attemptsInFlight();
                long busy = heapAfterGc();
                System.out.printf(
                        "attempts in flight %,d; heap after full GC: idle %,d KiB, in flight %,d KiB; %.1f KiB per attempt "
                                + "(engine, HTTP client, connection; receivers in another JVM)%n",
                        inFlight, idle >> 10, busy >> 10, (busy - idle) / 1024.0 / inFlight);
                if (System.getProperty("histogram") != null) {
                    Process jcmd = new ProcessBuilder(
                                    Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                            .toString(),
                                    Long.toString(ProcessHandle.current().pid()),
                                    "GC.class_histogram")
                            .redirectErrorStream(true)
                            .start();
                    new String(jcmd.getInputStream().readAllBytes())
                            .lines()
                            .limit(25)
                            .forEach(System.out::println);
                }
                engine.close();
            }
        } finally {
            child.destroy();
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The child: {@code n} hanging receivers, their URLs on stdout, until killed. */
    private static void receivers(int n) throws Exception {
        for (int i = 0; i < n; i++) System.out.println(new ParkingReceiver(new ParkingReceiver.Hang()).url("/hang"));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
