package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.wire.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What every inbox must do. Subclasses give two instances over one store and a way to let time pass. */
public abstract class InboxContract {
    protected final MutableClock clock = MutableClock.now();

    /** A new inbox instance; every instance of one test class shares one store. */
    protected abstract Inbox newInbox(Duration lease);

    /** Makes {@code d} pass for claims: moves the clock, or sleeps where the store keeps time itself. */
    protected void letTimePass(Duration d) throws InterruptedException {
        clock.advance(d);
    }

    /** A lease short enough to wait out in stores that keep time themselves. */
    protected Duration shortLease() {
        return Duration.ofSeconds(30);
    }

    protected static String key(String name) {
        return name + "-" + UUID.randomUUID();
    }

    @Test
    void firstDeliveryRunsTheWorkAndADuplicateGetsTheFirstResultWithoutRunningIt() throws Exception {
        Inbox inbox = newInbox(shortLease());
        String k = key("first");
        AtomicInteger runs = new AtomicInteger();
        Outcome first = inbox.execute(k, () -> "result-" + runs.incrementAndGet());
        Outcome second = newInbox(shortLease()).execute(k, () -> "result-" + runs.incrementAndGet());
        assertThat(first.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThat(first.result()).isEqualTo("result-1");
        assertThat(second.status()).isEqualTo(Outcome.Status.DUPLICATE);
        assertThat(second.result()).isEqualTo("result-1");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aNullResultIsADuplicateWithANullResult() throws Exception {
        Inbox inbox = newInbox(shortLease());
        String k = key("null");
        inbox.execute(k, () -> null);
        Outcome again = inbox.execute(k, () -> "never");
        assertThat(again.status()).isEqualTo(Outcome.Status.DUPLICATE);
        assertThat(again.result()).isNull();
    }

    @Test
    void workThatThrowsLeavesNoClaimAndTheRedeliveryDoesTheWork() throws Exception {
        Inbox inbox = newInbox(shortLease());
        String k = key("throws");
        assertThatThrownBy(() -> inbox.execute(k, () -> {
                    throw new IllegalStateException("boom");
                }))
                .hasMessage("boom");
        Outcome retry = newInbox(shortLease()).execute(k, () -> "done");
        assertThat(retry.status()).isEqualTo(Outcome.Status.PROCESSED);
        assertThat(retry.result()).isEqualTo("done");
    }

    @Test
    void aLiveClaimAnswersInProgressAndAnExpiredOneIsTakenOver() throws Exception {
        Inbox a = newInbox(shortLease());
        Inbox b = newInbox(shortLease());
        String k = key("takeover");
        ClaimAttempt held = a.claim(k, shortLease());
        assertThat(held.granted()).isTrue();
        Outcome busy = b.execute(k, () -> "never");
        assertThat(busy.status()).isEqualTo(Outcome.Status.IN_PROGRESS);
        assertThat(busy.retryAfter()).isPositive().isLessThanOrEqualTo(shortLease());

        letTimePass(shortLease().plusMillis(200));
        Outcome taken = b.execute(k, () -> "by-b");
        assertThat(taken.status()).isEqualTo(Outcome.Status.PROCESSED);
        // the stalled worker wakes up: its completion must not count
        assertThatThrownBy(() -> held.claim().complete("by-a")).isInstanceOf(ClaimLostException.class);
        assertThat(a.execute(k, () -> "never").result()).isEqualTo("by-b");
    }

    @Test
    void aLongHandlerThatExtendsItsClaimKeepsTheKeyPastTheFirstLease() throws Exception {
        Inbox inbox = newInbox(shortLease());
        String k = key("extend");
        ClaimAttempt held = inbox.claim(k, shortLease());
        held.claim().extend(shortLease().multipliedBy(4));
        letTimePass(shortLease().plusMillis(200));
        assertThat(newInbox(shortLease()).execute(k, () -> "never").status()).isEqualTo(Outcome.Status.IN_PROGRESS);
        held.claim().complete("long work");
        assertThat(newInbox(shortLease()).execute(k, () -> "never").result()).isEqualTo("long work");
    }

    @Test
    void extendingAClaimThatWasTakenOverFails() throws Exception {
        Inbox inbox = newInbox(shortLease());
        String k = key("extend-lost");
        ClaimAttempt held = inbox.claim(k, shortLease());
        letTimePass(shortLease().plusMillis(200));
        assertThat(newInbox(shortLease()).claim(k, shortLease()).granted()).isTrue();
        assertThatThrownBy(() -> held.claim().extend(shortLease())).isInstanceOf(ClaimLostException.class);
    }

    @Test
    void releasingAClaimLetsTheNextDeliveryClaimAtOnce() {
        Inbox inbox = newInbox(shortLease());
        String k = key("release");
        ClaimAttempt first = inbox.claim(k, shortLease());
        first.claim().close();
        first.claim().close();
        assertThat(newInbox(shortLease()).claim(k, shortLease()).granted()).isTrue();
    }

    @Test
    void aThousandKeysWithDuplicatesFromSixteenThreadsAtTwoInstancesHaveExactlyOneEffectEach() throws Exception {
        Inbox[] instances = {newInbox(shortLease()), newInbox(shortLease())};
        String run = UUID.randomUUID().toString().substring(0, 8);
        int keys = 1000;
        List<String> deliveries = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            String k = "load-" + run + "-" + i;
            deliveries.add(k);
            // 40% of keys are delivered twice, right after each other, so the copies race
            if (i % 5 < 2) deliveries.add(k);
        }
        Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(deliveries);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            Inbox inbox = instances[t % 2];
            done.add(pool.submit(() -> {
                for (String k; (k = queue.poll()) != null; ) {
                    String key = k;
                    while (true) {
                        Outcome o = inbox.execute(key, () -> {
                            effects.computeIfAbsent(key, x -> new AtomicInteger())
                                    .incrementAndGet();
                            return "ok";
                        });
                        if (o.status() == Outcome.Status.PROCESSED) processed.incrementAndGet();
                        if (o.status() == Outcome.Status.DUPLICATE) duplicates.incrementAndGet();
                        if (o.status() != Outcome.Status.IN_PROGRESS) break;
                        Thread.sleep(1); // the sender's retry
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        assertThat(effects).hasSize(keys);
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(processed).hasValue(keys);
        assertThat(duplicates).hasValue(deliveries.size() - keys);
    }

    @Test
    void pruningDeletesKeysOlderThanTheWindowAndKeepsNewerOnes() throws Exception {
        Inbox inbox = newInbox(shortLease());
        DedupWindow window = DedupWindow.of(Duration.ofDays(3), Duration.ofDays(1));
        String old = key("old");
        inbox.execute(old, () -> "old");
        clock.advance(Duration.ofDays(2));
        String recent = key("recent");
        inbox.execute(recent, () -> "recent");
        clock.advance(Duration.ofDays(1).plusMinutes(1));

        new InboxPruner(inbox, window, clock, 2).pruneNow();

        assertThat(inbox.execute(recent, () -> "again").status()).isEqualTo(Outcome.Status.DUPLICATE);
        assertThat(inbox.execute(old, () -> "again").status()).isEqualTo(Outcome.Status.PROCESSED);
    }

    @Test
    void pruningKeepsALiveClaimWhateverItsAge() throws Exception {
        Inbox inbox = newInbox(Duration.ofDays(10));
        String k = key("live");
        ClaimAttempt held = inbox.claim(k, Duration.ofDays(10));
        clock.advance(Duration.ofDays(4));
        new InboxPruner(inbox, DedupWindow.defaults(), clock).pruneNow();
        assertThat(inbox.execute(k, () -> "x").status()).isEqualTo(Outcome.Status.IN_PROGRESS);
        held.claim().complete("y");
    }
}
