package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Several nodes (stores with pools of their own) on one PostgreSQL database. */
class PostgresNodesTest extends StoreTestBase {
    @Override
    protected TestDatabase createDatabase() {
        return TestStores.postgresDatabase();
    }

    @Test
    void twoNodesClaimingTogetherNeverShareADelivery() throws Exception {
        int rows = 300;
        dueDeliveries(rows);
        try (Store other = database.open(clock)) {
            AtomicInteger n = new AtomicInteger();
            List<List<String>> claimed = Race.run(6, () -> {
                int me = n.incrementAndGet();
                Store node = me % 2 == 0 ? store : other;
                List<String> mine = new ArrayList<>();
                for (List<Claim> batch;
                        !(batch = node.queue().claimDue("node-" + me, Duration.ofMinutes(1), 10)).isEmpty(); )
                    batch.forEach(c -> mine.add(c.delivery().id()));
                return mine;
            });
            List<String> all = claimed.stream().flatMap(List::stream).toList();
            assertThat(all).hasSize(rows);
            assertThat(new HashSet<>(all)).hasSize(rows);
        }
    }

    @Test
    void aSignalFromOneNodeReachesTheOther() throws Exception {
        try (Store other = database.open(clock)) {
            Semaphore heard = new Semaphore(0);
            try (Store.Subscription ignored = other.onDeliveriesDue(heard::release)) {
                assertThat(signalUntilHeard(heard)).isTrue();
            }
        }
    }

    @Test
    void aLostListenConnectionIsReopenedAndTheListenerToldOnce() throws Exception {
        Semaphore heard = new Semaphore(0);
        try (Store.Subscription ignored = store.onDeliveriesDue(heard::release)) {
            assertThat(signalUntilHeard(heard)).isTrue();
            Thread.sleep(200);
            heard.drainPermits();

            Properties p = new Properties();
            p.setProperty("user", database.config().user());
            try (Connection c = DriverManager.getConnection(database.config().jdbcUrl(), p);
                    Statement s = c.createStatement()) {
                s.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'idem-listen' "
                                + "AND datname = current_database()");
            }
            // Signals sent while it was down may be lost: the reconnect itself calls the listener.
            assertThat(heard.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            heard.drainPermits();
            store.queue().notifyDue();
            assertThat(heard.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void twoProcessesJoiningOneNodeIdAtOnceMakeOneIncarnationAndTheOtherIsToldItIsOccupied() throws Exception {
        try (Store other = database.open(clock)) {
            AtomicInteger n = new AtomicInteger();
            List<NodeRegistry.Join> joins = Race.run(
                    2,
                    () -> (n.incrementAndGet() == 1 ? store : other)
                            .nodes()
                            .join("node-x", NodesContract.PROCESS, NodesContract.NEVER));
            assertThat(joins).filteredOn(j -> j instanceof NodeRegistry.Joined).hasSize(1);
            assertThat(joins)
                    .filteredOn(j -> j instanceof NodeRegistry.Occupied)
                    .hasSize(1);
            assertThat(store.nodes().find("node-x"))
                    .hasValueSatisfying(x -> assertThat(x.epoch()).isEqualTo(1));
        }
    }

    @Test
    void aNodeThatRenewsWhileAnotherDeclaresItDeadKeepsItsRecordAndItsClaims() throws Exception {
        try (Store other = database.open(clock)) {
            NodeRegistry.Node a = ((NodeRegistry.Joined)
                            store.nodes().join("node-a", NodesContract.PROCESS, NodesContract.NEVER))
                    .node();
            NodeRegistry.Node b = ((NodeRegistry.Joined)
                            other.nodes().join("node-b", NodesContract.PROCESS, NodesContract.NEVER))
                    .node();
            dueDeliveries(2);
            assertThat(other.queue().claimDue(b.owner(), Duration.ofSeconds(90), 2))
                    .hasSize(2);
            clock.advance(Duration.ofSeconds(1));

            // node-a has read node-b's record and judged it dead; node-b renews before node-a writes
            java.util.Optional<NodeRegistry.Scan> scan = store.nodes().takeOver("node-a", a.epoch(), (node, now) -> {
                java.util.concurrent.CompletableFuture<Boolean> renewed =
                        java.util.concurrent.CompletableFuture.supplyAsync(
                                () -> other.nodes().renew("node-b", b.epoch()));
                assertThat(renewed.orTimeout(10, TimeUnit.SECONDS).join()).isTrue();
                return true;
            });
            assertThat(scan).hasValueSatisfying(s -> assertThat(s.takeovers()).isEmpty());
            assertThat(store.nodes().find("node-b"))
                    .hasValueSatisfying(x -> assertThat(x.status()).isEqualTo(NodeRegistry.Status.LIVE));
            assertThat(store.queue().depth()).isEqualTo(2);
            assertThat(store.queue().claimDue("node-a#1", Duration.ofSeconds(90), 10))
                    .isEmpty();
        }
    }

    /** Signals until heard (the LISTEN connection comes up on the first subscription). */
    private boolean signalUntilHeard(Semaphore heard) throws InterruptedException {
        for (int i = 0; i < 50; i++) {
            store.queue().notifyDue();
            if (heard.tryAcquire(200, TimeUnit.MILLISECONDS)) return true;
        }
        return false;
    }
}
