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
import dev.idem.store.testing.PrivatePostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Restarts a PostgreSQL server while an engine is delivering: a private server of the test's own ({@link
 * PrivatePostgres}), stopped at once (as a crash would) and started again, so no other test running at the same time
 * loses its database. Tagged {@code slow}: a server of its own takes a few seconds to make.
 */
@Tag("slow")
class PostgresRestartTest {

    @Test
    void nothingIsLostWhenPostgresRestartsUnderLoad() throws Exception {
        Clock clock = Clock.systemUTC();
        try (PrivatePostgres db = PrivatePostgres.create();
                Receiver receiver = new Receiver(r -> Reply.ok().after(Duration.ofMillis(2)))) {
            Store store = db.open(clock);
            Engine engine = null;
            try {
                World world = new World(store, clock);
                List<Delivery> all = new ArrayList<>();
                Instant start = clock.instant();
                for (int i = 0; i < 40; i++)
                    all.addAll(world.createMany(Defs.once(receiver.url("/hook"), start.plusMillis(i * 200L)), 100));
                // a delivery whose give-back the outage broke returns when its lease expires: a short lease keeps that
                // wait (and the test) short; the receiver answers in milliseconds, well inside the request ceiling
                EngineConfig config = Engines.fast("node-a").toBuilder()
                        .maxRequestTimeout(Duration.ofSeconds(4))
                        .lease(Duration.ofSeconds(8))
                        .build();
                engine = new Engine(store, config, clock, new SplittableRandom(5), new SimpleMeterRegistry());
                engine.start();
                await().atMost(30, SECONDS).until(() -> receiver.requests().size() >= 500);

                db.stop();
                db.start();

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
