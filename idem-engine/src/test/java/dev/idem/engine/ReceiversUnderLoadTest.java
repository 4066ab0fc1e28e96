package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.FlowControl;
import dev.idem.core.RetryPolicy;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.ParkingReceiver.Answer;
import dev.idem.engine.testing.ParkingReceiver.Hang;
import dev.idem.engine.testing.World;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * The engine under real receivers that hang, answer slowly or recover, on real time (docs/api.md, "Flow control, fairness": one receiver
 * cannot hold up another). Assertions are on behaviour (on time against the due instant with generous bounds, limits
 * never exceeded, nothing lost), never on throughput.
 */
abstract class ReceiversUnderLoadTest {
    @TempDir
    Path dir;

    final Clock clock = Clock.systemUTC();
    final List<AutoCloseable> closeables = new ArrayList<>();
    Store store;
    World world;

    abstract Store open(Path dir, Clock clock);

    @BeforeEach
    void setUp() {
        store = open(dir, clock);
        world = new World(store, clock);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) closeables.get(i).close();
        store.close();
    }

    ParkingReceiver receiver(ParkingReceiver.Mode mode) throws Exception {
        ParkingReceiver r = new ParkingReceiver(mode);
        closeables.add(r);
        return r;
    }

    Engine engine(String node, SimpleMeterRegistry meters) {
        Engine e = new Engine(store, Engines.fast(node), clock, new SplittableRandom(3), meters);
        closeables.add(e);
        e.start();
        return e;
    }

    static ScheduleDefinition at(String endpoint, Instant due, Duration timeout, RetryPolicy retry) {
        return Defs.retry(Defs.once(endpoint, due), retry, timeout, 0);
    }

    static final RetryPolicy EVERY_SECOND =
            new RetryPolicy(100, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofHours(1));

    @Test
    void aHangingDestinationsBacklogDoesNotDelayAnotherDestinationsDeliveries() throws Exception {
        ParkingReceiver hanging = receiver(new Hang());
        ParkingReceiver healthy = receiver(new Answer(Duration.ZERO));
        Engine engine = engine("node-a", new SimpleMeterRegistry());
        java.util.Set<String> backlog = world
                .createMany(at(hanging.url("/h"), clock.instant(), Duration.ofSeconds(30), RetryPolicy.DEFAULT), 1000)
                .stream()
                .map(Delivery::id)
                .collect(Collectors.toSet());
        engine.wakeUp();
        await().atMost(30, SECONDS)
                .until(() -> hanging.open() == dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT);

        Instant now = clock.instant();
        List<ScheduleDefinition> onTime = new ArrayList<>();
        for (int i = 0; i < 40; i++)
            onTime.add(
                    at(healthy.url("/ok"), now.plusMillis(1000 + 50L * i), Duration.ofSeconds(5), RetryPolicy.DEFAULT));
        Map<String, Instant> dueOf =
                world.createEach(onTime).stream().collect(Collectors.toMap(Delivery::id, Delivery::scheduledFor));

        await().atMost(30, SECONDS).until(() -> healthy.requests() == 40);
        // generous for a loaded 2-core machine; without fairness they would wait for the hanging ones' 30 s timeout
        List<Long> lateMs = healthy.arrivals().stream()
                .map(a -> a.arrivedMillis() - dueOf.get(a.deliveryId()).toEpochMilli())
                .sorted()
                .toList();
        assertThat(lateMs)
                .as("ms from due instant to arrival, each healthy delivery")
                .allSatisfy(ms -> assertThat(ms).isBetween(-1L, 3_000L));
        // the hanging destination's backlog stayed in the table: only its own limit was claimed
        assertThat(hanging.maxOpen())
                .isLessThanOrEqualTo(dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT);
        long leased = world.deliveries().stream()
                .filter(d -> backlog.contains(d.id()) && d.status() == DeliveryStatus.DELIVERING)
                .count();
        assertThat(leased).isLessThanOrEqualTo(dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT);
    }

    @Test
    void rowsOfAnotherDestinationDueInTheMiddleOfAHangingDestinationsBacklogAreDeliveredWhileItStillHangs()
            throws Exception {
        ParkingReceiver hanging = receiver(new Hang());
        ParkingReceiver healthy = receiver(new Answer(Duration.ZERO));
        // more hanging rows before and after them than a claim's windows read (the earliest and the latest 500 due):
        // only a claim that passes over the hanging destination's rows finds them (Dispatcher.passOverLoop)
        Instant start = clock.instant().minusSeconds(10);
        List<ScheduleDefinition> defs = new ArrayList<>();
        for (int i = 0; i < 1_300; i++) {
            boolean middle = i >= 640 && i < 660;
            defs.add(at(
                    middle ? healthy.url("/ok") : hanging.url("/h"),
                    start.plusMillis(5L * i),
                    Duration.ofSeconds(60),
                    RetryPolicy.DEFAULT));
        }
        world.createEach(defs);
        Engine engine = engine("node-a", new SimpleMeterRegistry());
        engine.wakeUp();

        // without the pass-over they would wait for the hanging requests' 60 s timeout, and for more than that
        await().atMost(20, SECONDS).until(() -> healthy.requests() == 20);
        assertThat(hanging.requests())
                .as("the hanging destination's requests, none answered yet")
                .isEqualTo(hanging.open());
        assertThat(hanging.maxOpen())
                .as("its backlog stayed in the table: only its own limit was claimed")
                .isLessThanOrEqualTo(dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT);
    }

    @Test
    void aDestinationThatTimesOutShrinksToOneProbeAndGrowsBackWhenItAnswersAndOnlyAttemptsMadeCount() throws Exception {
        ParkingReceiver r = receiver(new Hang());
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
                new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        ch.qos.logback.classic.Logger destinationLog = (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger("dev.idem.engine.internal.Destinations");
        destinationLog.addAppender(logged);
        closeables.add(() -> destinationLog.detachAppender(logged));
        List<Delivery> all =
                world.createMany(at(r.url("/slow"), clock.instant(), Duration.ofSeconds(1), EVERY_SECOND), 300);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Engine engine = engine("node-a", meters);
        engine.wakeUp();

        await().atMost(30, SECONDS).until(() -> engine.destinationsThrottled() == 1);
        assertThat(meters.get("idem.destinations.throttled").gauge().value()).isEqualTo(1.0);
        // the first 64 time out together; from then on a single probe at a time, each ending in its 1 s timeout
        Thread.sleep(1_500);
        long from = System.currentTimeMillis();
        Thread.sleep(3_500);
        List<Long> probes = r.arrivals().stream()
                .map(ParkingReceiver.Arrival::arrivedMillis)
                .filter(t -> t >= from)
                .sorted()
                .toList();
        assertThat(probes).as("requests while it keeps timing out").isNotEmpty().hasSizeLessThanOrEqualTo(4);
        for (int i = 1; i < probes.size(); i++)
            assertThat(probes.get(i) - probes.get(i - 1))
                    .as("a probe starts only when the previous one timed out")
                    .isGreaterThanOrEqualTo(900L);

        r.mode(new Answer(Duration.ZERO));
        await().atMost(60, SECONDS)
                .until(() -> all.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        await().atMost(10, SECONDS).until(() -> engine.destinationsThrottled() == 0);
        // hundreds of timeouts and answers, two log lines: the state changes
        assertThat(logged.list)
                .extracting(e -> e.getFormattedMessage().replaceAll("\\d+", "N"))
                .containsExactly(
                        "destination http://N.N.N.N:N/slow throttled after N timeouts, resets or Nxx answers: at most N attempt(s) at once until it answers again",
                        "destination http://N.N.N.N:N/slow answering again: no longer throttled");
        for (Delivery d : all) {
            int attempts = world.attempts(d.id()).size();
            assertThat(attempts)
                    .as("attempts recorded for %s = requests it sent", d.id())
                    .isEqualTo(r.requestsFor(d.id()));
            assertThat(world.delivery(d.id()).attemptCount())
                    .as("attempt count of %s", d.id())
                    .isEqualTo(attempts);
        }
    }

    @Test
    void flowControlParallelismAndRateHoldForEverySchedulesSharingTheKey() throws Exception {
        ParkingReceiver slow = receiver(new Answer(Duration.ofMillis(150)));
        ParkingReceiver paced = receiver(new Answer(Duration.ZERO));
        Instant now = clock.instant();
        ScheduleDefinition limited = at(slow.url("/p"), now, Duration.ofSeconds(5), RetryPolicy.DEFAULT)
                .withFlowControl(new FlowControl("acme-api", 3, null));
        ScheduleDefinition rated = at(paced.url("/r"), now, Duration.ofSeconds(5), RetryPolicy.DEFAULT)
                .withFlowControl(new FlowControl("acme-rate", null, 5));
        List<Delivery> deliveries = new ArrayList<>(world.createMany(limited, 30));
        deliveries.addAll(world.createMany(rated, 15));
        Engine engine = engine("node-a", new SimpleMeterRegistry());
        engine.wakeUp();

        await().atMost(60, SECONDS)
                .until(() ->
                        deliveries.stream().allMatch(d -> world.delivery(d.id()).status() == DeliveryStatus.SUCCEEDED));
        assertThat(slow.maxOpen()).as("requests of key acme-api at once").isLessThanOrEqualTo(3);
        List<Long> times = paced.arrivals().stream()
                .map(ParkingReceiver.Arrival::arrivedMillis)
                .sorted()
                .toList();
        // 15 at 5 per second of the store's clock need three distinct seconds: more than a second from first to last
        assertThat(times.get(times.size() - 1) - times.get(0)).isGreaterThan(950L);
    }

    @Test
    void shutdownWithThousandsInFlightLosesNothingAndReleasesEveryLease() throws Exception {
        int destinations = 32;
        int each = dev.idem.engine.internal.Dispatcher.INITIAL_DESTINATION_LIMIT;
        List<ParkingReceiver> receivers = new ArrayList<>();
        List<ScheduleDefinition> defs = new ArrayList<>();
        for (int i = 0; i < destinations; i++) {
            ParkingReceiver r = receiver(new Hang());
            receivers.add(r);
            for (int j = 0; j < each + 8; j++)
                defs.add(at(r.url("/d"), clock.instant(), Duration.ofSeconds(60), RetryPolicy.DEFAULT));
        }
        List<Delivery> all = world.createEach(defs);
        EngineConfig firstConfig = Engines.fast("node-a").toBuilder()
                .maxInFlight(5000)
                .shutdownGrace(Duration.ofMillis(500))
                .build();
        Engine first = new Engine(store, firstConfig, clock, new SplittableRandom(5), new SimpleMeterRegistry());
        closeables.add(first);
        first.start();
        first.wakeUp();
        await().atMost(50, SECONDS)
                .until(() -> first.attemptsInFlight() == destinations * each
                        && receivers.stream().mapToInt(ParkingReceiver::open).sum() == destinations * each);

        first.close();

        assertThat(pending(DeliveryStatus.DELIVERING))
                .as("deliveries still leased after shutdown")
                .isZero();
        assertThat(pending(DeliveryStatus.SCHEDULED) + pending(DeliveryStatus.RETRYING))
                .isEqualTo(all.size());
        receivers.forEach(r -> r.mode(new Answer(Duration.ZERO)));
        Engine second = engine("node-b", new SimpleMeterRegistry());
        second.wakeUp();
        await().atMost(60, SECONDS).until(() -> pending(DeliveryStatus.SUCCEEDED) == all.size());
    }

    long pending(DeliveryStatus status) {
        return world.deliveries().stream().filter(d -> d.status() == status).count();
    }
}
