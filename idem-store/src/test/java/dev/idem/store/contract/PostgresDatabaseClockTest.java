package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Delivery;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.Store;
import dev.idem.store.JdbcStores;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** With the database clock on, claims and leases follow PostgreSQL's time, whatever the node's clock says. */
class PostgresDatabaseClockTest extends StoreTestBase {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }

    @Test
    void claimsAndLeasesUseTheDatabaseClockNotTheNodes() {
        try (Store dbClocked = JdbcStores.open(database.config().withDatabaseClock(true), clock)) {
            Instant real = Instant.now();
            assertThat(Duration.between(real, dbClocked.queue().now()).abs()).isLessThan(Duration.ofSeconds(5));

            Schedule s = schedule(tenant, T0);
            Delivery duePast = delivery(s, real.minusSeconds(60));
            delivery(s, real.plusSeconds(3600));
            // The node's clock (T0, in 2030) would make both due; the database's makes only the first.
            List<Claim> claimed = dbClocked.queue().claimDue("node", Duration.ofSeconds(30), 10);
            assertThat(claimed).extracting(c -> c.delivery().id()).containsExactly(duePast.id());
            Instant lease = claimed.get(0).delivery().leaseExpiresAt();
            assertThat(Duration.between(real.plusSeconds(30), lease).abs()).isLessThan(Duration.ofSeconds(5));
            assertThat(dbClocked.queue().reapExpired()).isZero();
        }
    }
}
