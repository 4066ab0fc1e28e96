package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.fanout.Endpoint;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Customers;
import dev.idem.engine.testing.ParkingReceiver;
import dev.idem.engine.testing.ParkingReceiver.Arrival;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link EndpointUnitTest} on PostgreSQL (a fresh database per test, dropped when the store closes), and an endpoint's
 * {@code rate_limit} held across two nodes on one database.
 */
class PostgresEndpointUnitTest extends EndpointUnitTest {
    @Override
    Store open(java.nio.file.Path dir, java.time.Clock clock) {
        return TestStores.postgres(clock);
    }

    /**
     * Requests counted per second of the receiver's clock. The limit counts the attempts started in each second of the
     * database's clock (the same machine's) by every node; a request reaches the receiver after it was started,
     * milliseconds later or, on a loaded machine, a second or more later, so requests started in several seconds may
     * arrive in one. What no delay can do is make a request arrive before it was allowed to start: by the end of the
     * k-th second after the engines started, at most {@code rate × k} requests may have arrived.
     */
    @Test
    void anEndpointsRateLimitHoldsAcrossTwoNodesOnOneDatabase() throws Exception {
        int rate = 5;
        int messages = 30;
        try (TestDatabase db = TestStores.postgresDatabase()) {
            Store a = db.open(clock);
            closeables.add(a);
            Store b = db.open(clock);
            closeables.add(b);
            ParkingReceiver r = receiver();
            Customers customers = new Customers(new World(a, clock));
            Endpoint limited = customers.endpoint(r.url("/limited"), "x", rate);
            Endpoint unlimited = customers.endpoint(r.url("/unlimited"), "x", null);
            customers.send("x", messages);
            SimpleMeterRegistry metersA = new SimpleMeterRegistry();
            SimpleMeterRegistry metersB = new SimpleMeterRegistry();
            long startSecond = clock.millis() / 1000;
            engine(a, "node-a", metersA);
            engine(b, "node-b", metersB);

            await().atMost(60, SECONDS).until(() -> r.arrivals("/limited").size() == messages);

            Map<Long, Integer> perSecond = new TreeMap<>();
            for (Arrival x : r.arrivals("/limited")) perSecond.merge(x.arrivedMillis() / 1000, 1, Integer::sum);
            int arrived = 0;
            for (var second : perSecond.entrySet()) {
                arrived += second.getValue();
                long seconds = second.getKey() - startSecond + 1;
                assertThat(arrived)
                        .as(
                                "requests to endpoint %s (rate_limit %d) arrived by the end of second %d after the start: %s",
                                limited.id(), rate, seconds, perSecond)
                        .isLessThanOrEqualTo((int) (rate * seconds));
            }
            assertThat(r.arrivals("/unlimited"))
                    .as("an endpoint without a limit of its own beside it: every message")
                    .hasSize(messages);
            assertThat(unlimited.rateLimit()).isNull();
            assertThat(succeeded(metersA)).as("node-a's share").isPositive();
            assertThat(succeeded(metersB)).as("node-b's share").isPositive();
        }
    }

    private static double succeeded(SimpleMeterRegistry meters) {
        return meters.get("idem.deliveries")
                .tag("outcome", "succeeded")
                .counter()
                .count();
    }
}
