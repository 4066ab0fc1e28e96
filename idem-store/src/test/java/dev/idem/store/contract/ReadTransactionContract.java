package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Schedule;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

abstract class ReadTransactionContract extends StoreTestBase {
    @Test
    void aReadTransactionSeesCommittedData() {
        Schedule s = schedule(tenant, T0);
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                .contains(s);
    }

    @Test
    void aWriteInsideAReadTransactionFailsAndChangesNothing() {
        Schedule s = newSchedule(tenant, T0);
        assertThatThrownBy(() -> store.inReadTransaction((StoreTx tx) -> {
                    tx.schedules().insert(s);
                    return null;
                }))
                .isInstanceOf(StoreException.class);
        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id())))
                .isEmpty();
    }

    @Test
    void connectionsUsedForReadsCanWriteAfterwards() {
        for (int i = 0; i < 12; i++) {
            store.inReadTransaction((StoreTx tx) -> tx.projects().count());
            Schedule s = newSchedule(tenant, T0);
            store.useTransaction(tx -> tx.schedules().insert(s));
        }
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.schedules().list(tenant, null, 100, null))
                        .data())
                .hasSize(12);
    }

    @Test
    void aReadDoesNotWaitForAnOpenWriteTransactionNorSeeIt() throws Exception {
        Schedule committed = schedule(tenant, T0);
        Schedule uncommitted = newSchedule(tenant, T0);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> store.useTransaction(tx -> {
            tx.schedules().insert(uncommitted);
            inside.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try {
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Boolean> read = CompletableFuture.supplyAsync(() -> store.inReadTransaction(
                    (StoreTx tx) -> tx.schedules().find(tenant, committed.id()).isPresent()
                            && tx.schedules().find(tenant, uncommitted.id()).isEmpty()));
            assertThat(read.get(3, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
            writer.get(10, TimeUnit.SECONDS);
        }
        assertThat(store.inReadTransaction((StoreTx tx) -> tx.schedules().find(tenant, uncommitted.id())))
                .isPresent();
    }
}
