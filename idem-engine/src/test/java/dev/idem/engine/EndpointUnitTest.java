package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.ScheduleDefinition;
import dev.idem.core.fanout.DisabledReason;
import dev.idem.core.fanout.Endpoint;
import dev.idem.core.store.Store;
import dev.idem.engine.internal.Dispatcher;
import dev.idem.engine.testing.Customers;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.ParkingReceiver.Answer;
import dev.idem.engine.testing.ParkingReceiver.Arrival;
import dev.idem.engine.testing.ParkingReceiver.Hang;
import dev.idem.engine.testing.World;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoint is the destination: a message's deliveries are claimed, limited and isolated per endpoint, even when
 * two endpoints share one URL, and a disabled endpoint's deliveries wait unattempted. Real receivers on loopback, real
 * stores. "On time" is against the hanging requests' own timeout (a message delivery's default, 30 s): every healthy
 * delivery must arrive before any hanging request could have timed out, which with one unit per URL none can (the
 * URL's slots are all held by the hanging endpoint's requests).
 */
abstract class EndpointUnitTest {
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

    static final Duration HANG_TIMEOUT = ScheduleDefinition.DEFAULT_TIMEOUT;

    ParkingReceiver receiver() throws Exception {
        ParkingReceiver r = new ParkingReceiver(new Answer(Duration.ZERO));
        closeables.add(r);
        return r;
    }

    Engine engine(Store store, String nodeId, SimpleMeterRegistry meters) {
        Engine e = new Engine(store, Engines.fast(nodeId), clock, new SplittableRandom(3), meters);
        closeables.add(e);
        e.start();
        e.wakeUp();
        return e;
    }

    static List<String> messageIds(List<Delivery> deliveries, Endpoint to) {
        return deliveries.stream()
                .filter(d -> d.endpointId().equals(to.id()))
                .map(Delivery::messageId)
                .toList();
    }

    /** The healthy endpoint got each of its messages once, before any of the hanging requests could time out. */
    static void onTimeBesideTheHanging(ParkingReceiver r, String ok, List<String> messages, String hanging) {
        assertThat(r.arrivals(ok)).extracting(Arrival::deliveryId).containsExactlyInAnyOrderElementsOf(messages);
        long firstHang = r.arrivals(hanging).stream()
                .mapToLong(Arrival::arrivedMillis)
                .min()
                .orElseThrow();
        assertThat(r.arrivals(ok))
                .allSatisfy(a -> assertThat(a.arrivedMillis())
                        .as("message %s arrived before the first hanging request's timeout", a.deliveryId())
                        .isLessThan(firstHang + HANG_TIMEOUT.toMillis()));
        assertThat(r.parked(hanging))
                .as("every hanging request is still held (none timed out meanwhile)")
                .isEqualTo(r.arrivals(hanging).size());
        assertThat(r.arrivals(hanging))
                .as("the hanging endpoint never had more than its own limit on the wire")
                .hasSizeLessThanOrEqualTo(Dispatcher.INITIAL_DESTINATION_LIMIT);
    }

    @Test
    void twoEndpointsOnOneUrlAreTwoUnitsSoOneHangingDoesNotHoldUpTheOther() throws Exception {
        ParkingReceiver r = receiver();
        Customers customers = new Customers(new World(store, clock));
        Endpoint hanging = customers.endpoint(r.url("/hooks"), "a", null);
        Endpoint healthy = customers.endpoint(r.url("/hooks"), "b", null);
        String hangingAt = "/hooks#" + hanging.id();
        r.mode(hangingAt, new Hang());
        List<Delivery> stuck = customers.send("a", 300);
        Engine engine = engine(store, "node-a", new SimpleMeterRegistry());
        // the hanging endpoint holds a whole unit's worth of requests: with the URL as the unit, all of the other's too
        await().atMost(30, SECONDS).until(() -> r.parked(hangingAt) == Dispatcher.INITIAL_DESTINATION_LIMIT);

        List<Delivery> sent = customers.send("b", 200);
        String healthyAt = "/hooks#" + healthy.id();
        await().atMost(HANG_TIMEOUT.minusSeconds(5))
                .until(() -> r.arrivals(healthyAt).size() == sent.size());

        onTimeBesideTheHanging(r, healthyAt, messageIds(sent, healthy), hangingAt);
        long leased = stuck.stream()
                .filter(d -> new World(store, clock).delivery(d.id()).status() == DeliveryStatus.DELIVERING)
                .count();
        assertThat(leased)
                .as("the hanging endpoint's backlog stayed in the table")
                .isLessThanOrEqualTo(Dispatcher.INITIAL_DESTINATION_LIMIT);
        assertThat(engine.hostsThrottled())
                .as("a hanging endpoint is not its host's trouble")
                .isZero();
    }

    @Test
    void aHangingEndpointBesideHealthyOnesOfTheSameMessageHoldsUpOnlyItsOwnDeliveries() throws Exception {
        ParkingReceiver r = receiver();
        Customers customers = new Customers(new World(store, clock));
        Endpoint hanging = customers.endpoint(r.url("/hang"), "invoice.paid", null);
        Endpoint ok1 = customers.endpoint(r.url("/ok1"), "invoice.paid", null);
        Endpoint ok2 = customers.endpoint(r.url("/ok2"), "invoice.paid", null);
        r.mode("/hang", new Hang());
        List<Delivery> sent = customers.send("invoice.paid", 150);
        assertThat(sent).hasSize(450);
        engine(store, "node-a", new SimpleMeterRegistry());

        await().atMost(HANG_TIMEOUT.minusSeconds(5))
                .until(() -> r.arrivals("/ok").size() == 300);

        onTimeBesideTheHanging(r, "/ok1", messageIds(sent, ok1), "/hang");
        onTimeBesideTheHanging(r, "/ok2", messageIds(sent, ok2), "/hang");
        assertThat(messageIds(sent, hanging)).hasSize(150);
    }

    @Test
    void aDisabledEndpointGetsNoAttemptAndEnablingItSendsWhatWaitedButReplaysNothing() throws Exception {
        ParkingReceiver r = receiver();
        World world = new World(store, clock);
        Customers customers = new Customers(world);
        Endpoint disabled = customers.endpoint(r.url("/disabled"), "x", null);
        customers.endpoint(r.url("/marker"), "x", null);
        // one message due to both before the disable: its delivery to the disabled endpoint waits
        List<Delivery> before = customers.send("x");
        customers.setDisabled(disabled, DisabledReason.MANUAL);
        // one sent while it is disabled: none for it
        List<Delivery> during = customers.send("x");
        assertThat(during).extracting(Delivery::endpointId).doesNotContain(disabled.id());
        engine(store, "node-a", new SimpleMeterRegistry());
        await().atMost(30, SECONDS).until(() -> r.arrivals("/marker").size() == 2);
        // one more through the engine's loops after those: the waiting delivery was passed over, not attempted
        customers.send("x");
        await().atMost(30, SECONDS).until(() -> r.arrivals("/marker").size() == 3);

        assertThat(r.arrivals("/disabled"))
                .as("attempts to the disabled endpoint")
                .isEmpty();
        Delivery waiting = before.stream()
                .filter(d -> d.endpointId().equals(disabled.id()))
                .findFirst()
                .orElseThrow();
        assertThat(world.delivery(waiting.id()).status()).isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(world.delivery(waiting.id()).attemptCount()).isZero();

        customers.setDisabled(disabled, null);
        await().atMost(30, SECONDS).until(() -> r.arrivals("/disabled").size() == 1);
        List<Delivery> after = customers.send("x");
        await().atMost(30, SECONDS).until(() -> r.arrivals("/disabled").size() == 2);

        assertThat(r.arrivals("/disabled"))
                .extracting(Arrival::deliveryId)
                .as("what waited, then what was sent after enabling; never the message sent while it was disabled")
                .containsExactly(
                        waiting.messageId(), messageIds(after, disabled).get(0));
        await().atMost(30, SECONDS).until(() -> world.delivery(waiting.id()).status() == DeliveryStatus.SUCCEEDED);
    }
}
