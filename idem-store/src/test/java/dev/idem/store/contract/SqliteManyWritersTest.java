package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Schedule;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SQLite has one writer: many threads (and a second store on the same file) queue for it, never fail with SQLITE_BUSY. */
class SqliteManyWritersTest extends StoreTestBase {
    @TempDir
    static Path dir;

    @Override
    protected TestDatabase createDatabase() {
        return TestStores.sqliteDatabase(dir);
    }

    @Test
    void sixteenThreadsWritingAtOnceAllSucceed() throws Exception {
        AtomicInteger delivered = new AtomicInteger();
        List<Integer> done = Race.run(16, () -> {
            int n = 0;
            for (int i = 0; i < 25; i++) {
                Schedule s = newSchedule(tenant, clock.instant());
                store.useTransaction(tx -> {
                    tx.schedules().insert(s);
                    tx.deliveries()
                            .insertIfAbsent(
                                    Delivery.scheduled(ids.next("dlv"), s, clock.instant(), 1, clock.instant()));
                });
                String owner = "t" + Thread.currentThread().getId();
                for (Claim c : store.queue().claimDue(owner, Duration.ofMinutes(1), 2)) {
                    Attempt a = new Attempt(
                            ids.next("att"),
                            c.delivery().id(),
                            c.delivery().attemptCount(),
                            clock.instant(),
                            1,
                            200,
                            null,
                            "");
                    delivered.addAndGet(store.queue()
                            .complete(
                                    owner,
                                    List.of(new Outcome(c.delivery().id(), a, DeliveryStatus.SUCCEEDED, null, null)))
                            .applied()
                            .size());
                }
                n++;
            }
            return n;
        });
        assertThat(done).containsOnly(25);
        while (true) {
            List<Claim> rest = store.queue().claimDue("sweeper", Duration.ofMinutes(1), 100);
            if (rest.isEmpty()) break;
            for (Claim c : rest) {
                Attempt a = new Attempt(
                        ids.next("att"),
                        c.delivery().id(),
                        c.delivery().attemptCount(),
                        clock.instant(),
                        1,
                        200,
                        null,
                        "");
                delivered.addAndGet(store.queue()
                        .complete(
                                "sweeper",
                                List.of(new Outcome(c.delivery().id(), a, DeliveryStatus.SUCCEEDED, null, null)))
                        .applied()
                        .size());
            }
        }
        assertThat(delivered.get()).isEqualTo(16 * 25);
    }

    @Test
    void aNestedTransactionIsRefusedInsteadOfWaitingForItself() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> store.useTransaction(outer -> store.useTransaction(inner -> {})))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("do not nest");
    }

    @Test
    void aSecondStoreOnTheSameFileWaitsForTheWriterInsteadOfFailing() throws Exception {
        try (Store second = database.open(clock)) {
            AtomicInteger turn = new AtomicInteger();
            List<Integer> done = Race.run(8, () -> {
                Store mine = turn.incrementAndGet() % 2 == 0 ? store : second;
                for (int i = 0; i < 20; i++) {
                    Schedule s = newSchedule(tenant, clock.instant());
                    mine.useTransaction((StoreTx tx) -> tx.schedules().insert(s));
                }
                return 20;
            });
            assertThat(done).containsOnly(20);
            assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().list(tenant, null, 1000, null))
                            .data())
                    .hasSize(160);
        }
    }
}
