package dev.idem.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Readiness from a cached probe whose good answer lasts less than a probe may hang (a fake clock moves time). */
class ReadinessProbeTest {
    @Test
    void aProbeThatHangsTurnsReadinessWhenTheLastGoodAnswerIsOlderThanItsFreshnessNotWhenTheProbeGivesUp()
            throws Exception {
        AtomicLong now = new AtomicLong(1_000_000_000L);
        AtomicInteger probes = new AtomicInteger();
        CountDownLatch hanging = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ReadinessProbe readiness = new ReadinessProbe(
                () -> {
                    if (probes.incrementAndGet() == 1) return true;
                    hanging.countDown(); // the database stopped answering: this probe hangs
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return false;
                },
                now::get);
        try {
            readiness.start();
            assertThat(readiness.ready()).isTrue();
            assertThat(hanging.await(30, TimeUnit.SECONDS)).isTrue();

            now.addAndGet(ReadinessProbe.FRESH_FOR.minusMillis(1).toNanos());
            assertThat(readiness.ready())
                    .as("a good answer within its freshness stands")
                    .isTrue();
            now.addAndGet(Duration.ofMillis(2).toNanos());
            assertThat(readiness.ready())
                    .as("the probe still hangs, and the good answer is older than %s", ReadinessProbe.FRESH_FOR)
                    .isFalse();
            // shorter than what a probe may take (a second for its connection, a second for its query)
            assertThat(ReadinessProbe.FRESH_FOR).isLessThan(Duration.ofSeconds(2));
        } finally {
            release.countDown();
            readiness.close();
        }
    }

    @Test
    void aFailedProbeTurnsReadinessAndAGoodOneTurnsItBack() {
        AtomicLong now = new AtomicLong();
        AtomicBoolean up = new AtomicBoolean(true);
        ReadinessProbe readiness = new ReadinessProbe(up::get, now::get);
        try {
            readiness.start();
            assertThat(readiness.ready()).isTrue();
            up.set(false);
            await().atMost(Duration.ofSeconds(30)).until(() -> !readiness.ready());
            up.set(true);
            await().atMost(Duration.ofSeconds(30)).until(readiness::ready);
        } finally {
            readiness.close();
        }
    }
}
