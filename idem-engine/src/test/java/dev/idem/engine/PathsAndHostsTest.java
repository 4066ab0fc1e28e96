package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Mode;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.engine.internal.Dispatcher;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.ParkingReceiver.Answer;
import dev.idem.engine.testing.ParkingReceiver.Arrival;
import dev.idem.engine.testing.ParkingReceiver.Hang;
import dev.idem.engine.testing.World;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths and hosts: each endpoint URL has its own concurrency, so one hanging path does not hold up the other paths of
 * its host and port, whatever project they belong to; the host keeps what is the host's (a cap on connections at once
 * shared among its paths, throttling when connecting fails). Real receivers on loopback, real stores. "On time" here is
 * against the hanging requests' own timeout: every healthy delivery must arrive before any hanging request could have
 * timed out, which without per-path limits none can (the host's slots are all held by the hanging path).
 */
abstract class PathsAndHostsTest {
    @TempDir
    Path dir;

    final Clock clock = Clock.systemUTC();
    final List<AutoCloseable> closeables = new ArrayList<>();
    Store store;

    abstract Store open(Path dir, Clock clock);

    @BeforeEach
    void setUp() {
        store = open(dir, clock);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) closeables.get(i).close();
        store.close();
    }

    private static final Duration HANG_TIMEOUT = Duration.ofSeconds(40);

    ParkingReceiver receiver(int port) throws Exception {
        ParkingReceiver r = new ParkingReceiver(new Answer(Duration.ZERO), port);
        closeables.add(r);
        return r;
    }

    Engine engine(EngineConfig config) {
        Engine e = new Engine(store, config, clock, new SplittableRandom(3), new SimpleMeterRegistry());
        closeables.add(e);
        e.start();
        e.wakeUp();
        return e;
    }

    static ScheduleDefinition at(String endpoint, Instant due, Duration timeout) {
        return Defs.retry(Defs.once(endpoint, due), RetryPolicy.DEFAULT, timeout, 0);
    }

    /** Deliveries due one every {@code stepMillis} from {@code first}; their due instants by id. */
    static Map<String, Instant> spread(World w, String endpoint, Instant first, int n, long stepMillis) {
        List<ScheduleDefinition> defs = new ArrayList<>();
        for (int i = 0; i < n; i++) defs.add(at(endpoint, first.plusMillis(stepMillis * i), Duration.ofSeconds(5)));
        return w.createEach(defs).stream().collect(Collectors.toMap(Delivery::id, Delivery::scheduledFor));
    }

    /** Every healthy delivery arrived once, never before its instant, and before any hanging request could time out. */
    static void onTimeBesideTheHanging(
            ParkingReceiver r, String okPrefix, Map<String, Instant> due, String hangPrefix) {
        List<Arrival> ok = r.arrivals(okPrefix);
        assertThat(ok).extracting(Arrival::deliveryId).containsExactlyInAnyOrderElementsOf(due.keySet());
        long firstHang = r.arrivals(hangPrefix).stream()
                .mapToLong(Arrival::arrivedMillis)
                .min()
                .orElseThrow();
        for (Arrival a : ok) {
            assertThat(a.arrivedMillis())
                    .as("delivery %s arrived at or after its due instant (to the millisecond)", a.deliveryId())
                    .isGreaterThanOrEqualTo(due.get(a.deliveryId()).toEpochMilli() - 1);
            assertThat(a.arrivedMillis())
                    .as("delivery %s arrived before the first hanging request's timeout", a.deliveryId())
                    .isLessThan(firstHang + HANG_TIMEOUT.toMillis());
        }
        assertThat(r.parked(hangPrefix))
                .as("every hanging request is still held (none timed out meanwhile)")
                .isEqualTo(r.arrivals(hangPrefix).size());
    }

    @Test
    void aHangingPathOfOneProjectDoesNotHoldUpAnotherProjectsPathOnTheSameHostAndPort() throws Exception {
        ParkingReceiver r = receiver(0);
        r.mode("/hang/", new Hang());
        World projectA = new World(store, clock, new Tenant("prj_a", Mode.LIVE));
        World projectB = new World(store, clock, new Tenant("prj_b", Mode.LIVE));
        List<Delivery> hanging = projectB.createMany(at(r.url("/hang/b"), clock.instant(), HANG_TIMEOUT), 500);
        Engine engine = engine(Engines.fast("node-a"));
        // the hanging path holds a whole path's worth of requests: without per-path limits, all of its host's
        await().atMost(30, SECONDS).until(() -> r.parked("/hang/") == Dispatcher.INITIAL_DESTINATION_LIMIT);

        Map<String, Instant> due =
                spread(projectA, r.url("/ok/a"), clock.instant().plusMillis(500), 300, 10);
        await().atMost(HANG_TIMEOUT.minusSeconds(5))
                .until(() -> r.arrivals("/ok/").size() == due.size());

        onTimeBesideTheHanging(r, "/ok/", due, "/hang/");
        assertThat(r.arrivals("/hang/"))
                .as("the hanging path never had more than its own limit on the wire")
                .hasSizeLessThanOrEqualTo(Dispatcher.INITIAL_DESTINATION_LIMIT);
        long leased = hanging.stream()
                .filter(d -> projectB.delivery(d.id()).status() == DeliveryStatus.DELIVERING)
                .count();
        assertThat(leased)
                .as("the hanging path's backlog stayed in the table")
                .isLessThanOrEqualTo(Dispatcher.INITIAL_DESTINATION_LIMIT);
        assertThat(engine.hostsThrottled())
                .as("a hanging path is not the host's trouble")
                .isZero();
    }

    @Test
    void aHundredHangingPathsCannotTakeEveryConnectionOfTheirHost() throws Exception {
        ParkingReceiver r = receiver(0);
        r.mode("/hang/", new Hang());
        World w = new World(store, clock);
        int cap = 200;
        List<ScheduleDefinition> defs = new ArrayList<>();
        for (int path = 0; path < 100; path++)
            for (int i = 0; i < 6; i++) defs.add(at(r.url("/hang/" + path), clock.instant(), HANG_TIMEOUT));
        w.createEach(defs);
        engine(Engines.fast("node-a").toBuilder().maxConnectionsPerHost(cap).build());
        // 600 hanging requests wanted, at most the host's 200 at once, less the room kept for a path that comes later
        await().atMost(30, SECONDS).until(() -> r.parked("/hang/") >= cap * 3 / 4);

        Map<String, Instant> due = spread(w, r.url("/ok"), clock.instant().plusMillis(200), 40, 20);
        await().atMost(HANG_TIMEOUT.minusSeconds(5))
                .until(() -> r.arrivals("/ok").size() == due.size());

        onTimeBesideTheHanging(r, "/ok", due, "/hang/");
        assertThat(r.maxOpen()).as("connections to the host at once").isLessThanOrEqualTo(cap);
        assertThat(r.arrivals("/hang/").stream().map(Arrival::path).distinct().count())
                .as("hanging paths that got a connection: the cap is shared among them in turn")
                .isEqualTo(100);
    }

    @Test
    void aPathAnswering5xxIsThrottledOnItsOwnWhileItsHostAndTheHostsOtherPathsGoOn() throws Exception {
        ParkingReceiver r = receiver(0);
        r.mode("/fail/", new ParkingReceiver.Fail(503));
        World w = new World(store, clock);
        RetryPolicy everySecond =
                new RetryPolicy(100, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1));
        List<ScheduleDefinition> failing = new ArrayList<>();
        for (int i = 0; i < 40; i++)
            failing.add(
                    Defs.retry(Defs.once(r.url("/fail/b"), clock.instant()), everySecond, Duration.ofSeconds(5), 0));
        w.createEach(failing);
        Engine engine = engine(Engines.fast("node-a"));

        await().atMost(30, SECONDS).until(() -> engine.destinationsThrottled() == 1);
        Map<String, Instant> due = spread(w, r.url("/ok/a"), clock.instant().plusMillis(200), 100, 5);
        await().atMost(30, SECONDS).until(() -> r.arrivals("/ok/").size() == due.size());

        assertThat(r.arrivals("/ok/"))
                .extracting(Arrival::deliveryId)
                .containsExactlyInAnyOrderElementsOf(due.keySet());
        assertThat(engine.destinationsThrottled())
                .as("only the failing path is throttled: its sibling on the same host is not")
                .isEqualTo(1);
        assertThat(engine.hostsThrottled())
                .as("a 5xx is the path's trouble: the host answered")
                .isZero();
    }

    @Test
    void aHostThatRefusesConnectionsThrottlesAllItsPathsUntilItAcceptsAgain() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        World w = new World(store, clock);
        RetryPolicy everySecond =
                new RetryPolicy(100, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1));
        List<ScheduleDefinition> defs = new ArrayList<>();
        for (String path : List.of("/a", "/b", "/c"))
            for (int i = 0; i < 40; i++)
                defs.add(Defs.retry(Defs.once(base + path, clock.instant()), everySecond, Duration.ofSeconds(5), 0));
        List<Delivery> all = w.createEach(defs);
        Engine engine = engine(Engines.fast("node-a"));

        await().atMost(30, SECONDS).until(() -> engine.hostsThrottled() == 1);
        assertThat(engine.destinationsThrottled())
                .as("refused connections are the host's: no path's own limit shrank")
                .isZero();

        ParkingReceiver r = receiver(port);
        await().atMost(60, SECONDS)
                .until(() -> all.stream().allMatch(d -> w.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        await().atMost(10, SECONDS).until(() -> engine.hostsThrottled() == 0);
        assertThat(r.arrivals().stream().map(Arrival::path).distinct()).containsExactlyInAnyOrder("/a", "/b", "/c");
        for (Delivery d : all)
            assertThat(r.requestsFor(d.id())).as("each delivery arrived once").isEqualTo(1);
    }
}
