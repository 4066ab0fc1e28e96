package dev.idem.engine;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.Store;
import dev.idem.engine.testing.Defs;
import dev.idem.engine.testing.Engines;
import dev.idem.engine.testing.Receiver;
import dev.idem.engine.testing.Receiver.Reply;
import dev.idem.engine.testing.World;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Restarts the machine's PostgreSQL server while an engine is delivering. Tagged {@code slow}: it takes the
 * database away from every other test running at the same time, so it is not part of the default run.
 */
@Tag("slow")
class PostgresRestartTest {
    private static final String RESTART = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main restart";

    @Test
    void nothingIsLostWhenPostgresRestartsUnderLoad() throws Exception {
        Clock clock = Clock.systemUTC();
        try (TestDatabase db = TestStores.postgresDatabase();
                Receiver receiver = new Receiver(r -> Reply.ok().after(Duration.ofMillis(2)))) {
            Store store = db.open(clock);
            Engine engine = null;
            try {
                World world = new World(store, clock);
                List<Delivery> all = new ArrayList<>();
                Instant start = clock.instant();
                for (int i = 0; i < 40; i++)
                    all.addAll(world.createMany(Defs.once(receiver.url("/hook"), start.plusMillis(i * 200L)), 100));
                engine = new Engine(
                        store, Engines.fast("node-a"), clock, new SplittableRandom(5), new SimpleMeterRegistry());
                engine.start();
                await().atMost(30, SECONDS).until(() -> receiver.requests().size() >= 500);

                Process restart = new ProcessBuilder("bash", "-c", RESTART)
                        .redirectErrorStream(true)
                        .start();
                assertThat(restart.waitFor(90, TimeUnit.SECONDS))
                        .as("PostgreSQL restarted in time")
                        .isTrue();
                assertThat(restart.exitValue())
                        .as(new String(restart.getInputStream().readAllBytes()))
                        .isZero();

                await().atMost(180, SECONDS)
                        .pollInterval(Duration.ofMillis(500))
                        .ignoreExceptions()
                        .until(() -> store.queue().depth() == 0);
                for (Delivery d : all) {
                    assertThat(world.delivery(d.id()).status()).as(d.id()).isEqualTo(DeliveryStatus.SUCCEEDED);
                    assertThat(receiver.requestsFor(d.id())).as(d.id()).isNotEmpty();
                }
            } finally {
                if (engine != null) engine.close();
                store.close();
            }
        }
    }
}
