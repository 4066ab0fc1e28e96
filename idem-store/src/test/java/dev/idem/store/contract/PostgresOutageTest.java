package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.idem.core.Project;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.store.JdbcStores;
import dev.idem.store.testing.PrivatePostgres;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL that stops (a private server, {@link PrivatePostgres}): callers of the store fail with a transient
 * {@link StoreException} well before the pool's connection timeout, once a connection attempt or a probe has failed;
 * the probe says so; and the store serves again, with what was committed before, when the database is back.
 */
class PostgresOutageTest {
    @Test
    void whenPostgresStopsCallersFailFastWithATransientErrorAndTheStoreRecoversWhenItIsBack() {
        try (PrivatePostgres pg = PrivatePostgres.create();
                Store store = pg.open(Clock.systemUTC())) {
            Instant t = Instant.parse("2030-01-01T00:00:00Z");
            store.useTransaction(tx -> tx.projects().insert(new Project("proj_before", "before", t)));
            assertThat(store.isReachable()).isTrue();

            pg.stop();
            // the first caller finds out (its connection attempt is refused): no longer than the pool's timeout
            StoreException first = catchThrowableOfType(StoreException.class, () -> readProjects(store));
            assertThat(first).isNotNull();
            assertThat(first.transientFailure()).isTrue();
            assertThat(store.isReachable()).isFalse();
            for (int i = 0; i < 20; i++) {
                long t0 = System.nanoTime();
                StoreException e = catchThrowableOfType(StoreException.class, () -> readProjects(store));
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                assertThat(e).isNotNull();
                assertThat(e.transientFailure()).isTrue();
                // without the gate each of these waits the whole connection timeout
                assertThat(took).isLessThan(JdbcStores.CONNECTION_TIMEOUT);
            }

            pg.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!store.isReachable() && System.nanoTime() < deadline) sleep(200);
            assertThat(store.isReachable()).isTrue();
            // The probe has its own connection; the main pool reconnects on HikariCP's own schedule (a backoff of up
            // to 5 s after a long outage), and until then a caller may still get the transient failure, never another.
            java.util.List<String> projects = null;
            while (projects == null && System.nanoTime() < deadline) {
                try {
                    projects = readProjects(store);
                } catch (StoreException stillDown) {
                    assertThat(stillDown.transientFailure()).isTrue();
                    sleep(200);
                }
            }
            assertThat(projects).contains("proj_before");
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static java.util.List<String> readProjects(Store store) {
        return store.inReadTransaction(tx ->
                tx.projects().findByName("before").stream().map(Project::id).toList());
    }
}
