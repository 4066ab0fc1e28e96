package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.store.Store;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The deliveries-due signal: heard after notifyDue and after a committing transaction, not after a rollback. */
abstract class SignalContract extends StoreTestBase {
    @Test
    void aListenerHearsNotifyDue() throws Exception {
        Semaphore heard = new Semaphore(0);
        try (Store.Subscription ignored = store.onDeliveriesDue(heard::release)) {
            awaitListening(heard);
            store.queue().notifyDue();
            assertThat(heard.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aListenerHearsACommittedTransactionButNotARolledBackOne() throws Exception {
        Semaphore heard = new Semaphore(0);
        try (Store.Subscription ignored = store.onDeliveriesDue(heard::release)) {
            awaitListening(heard);
            try {
                store.useTransaction(tx -> {
                    tx.notifyDeliveriesDue();
                    throw new IllegalStateException("rolled back");
                });
            } catch (IllegalStateException expected) {
                // the signal must die with the transaction
            }
            assertThat(heard.tryAcquire(700, TimeUnit.MILLISECONDS)).isFalse();
            store.useTransaction(tx -> {
                tx.notifyDeliveriesDue();
                tx.notifyDeliveriesDue();
            });
            assertThat(heard.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aClosedSubscriptionHearsNothing() throws Exception {
        Semaphore heard = new Semaphore(0);
        Store.Subscription sub = store.onDeliveriesDue(heard::release);
        awaitListening(heard);
        sub.close();
        sub.close();
        heard.drainPermits();
        store.queue().notifyDue();
        assertThat(heard.tryAcquire(700, TimeUnit.MILLISECONDS)).isFalse();
    }

    /**
     * Signals until the listener hears one (PostgreSQL connects its LISTEN connection on the first
     * subscription), then lets stragglers arrive and forgets them.
     */
    private void awaitListening(Semaphore heard) throws InterruptedException {
        for (int i = 0; i < 50 && !heard.tryAcquire(); i++) {
            store.queue().notifyDue();
            if (heard.tryAcquire(200, TimeUnit.MILLISECONDS)) break;
        }
        Thread.sleep(200);
        heard.drainPermits();
    }
}
