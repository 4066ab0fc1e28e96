package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.ScheduleRepository;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

abstract class QueueContract extends StoreTestBase {
    static final Duration LEASE = Duration.ofSeconds(60);

    DeliveryQueue queue() {
        return store.queue();
    }

    @Test
    void concurrentClaimersNeverGetTheSameDelivery() throws Exception {
        int rows = 400;
        dueDeliveries(rows);
        AtomicInteger node = new AtomicInteger();
        List<List<String>> perClaimer = Race.run(4, () -> {
            String owner = "node-" + node.incrementAndGet();
            List<String> mine = new ArrayList<>();
            for (List<Claim> batch; !(batch = queue().claimDue(owner, LEASE, 25)).isEmpty(); ) {
                for (Claim c : batch) {
                    assertThat(c.delivery().leaseOwner()).isEqualTo(owner);
                    mine.add(c.delivery().id());
                }
            }
            return mine;
        });
        List<String> all = perClaimer.stream().flatMap(List::stream).toList();
        assertThat(all).hasSize(rows);
        assertThat(new HashSet<>(all)).hasSize(rows);
        assertThat(queue().depth()).isEqualTo(rows);
    }

    @Test
    void aClaimSetsTheLeaseCountsTheAttemptAndCarriesTheSchedule() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim c = queue().claimDue("node-a", LEASE, 10).get(0);
        assertThat(c.schedule()).isEqualTo(s);
        assertThat(c.delivery().status()).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(c.delivery().leaseOwner()).isEqualTo("node-a");
        assertThat(c.delivery().leaseExpiresAt()).isEqualTo(T0.plus(LEASE));
        assertThat(c.delivery().attemptCount()).isEqualTo(1);
        assertThat(c.delivery().id()).isEqualTo(d.id());
        assertThat(queue().claimDue("node-b", LEASE, 10)).isEmpty();
    }

    @Test
    void theTraceContextOfAScheduleIsReadBackAndComesWithItsClaim() {
        dev.idem.core.TraceContext trace = new dev.idem.core.TraceContext(
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "vendor=a,other=b");
        Schedule s = newSchedule(tenant, T0).withTrace(trace);
        store.useTransaction(tx -> tx.schedules().insert(s));
        Schedule untraced = schedule(tenant, T0);
        delivery(s, T0);
        delivery(untraced, T0);

        assertThat(store.inTransaction((StoreTx tx) -> tx.schedules().find(tenant, s.id()))
                        .orElseThrow()
                        .trace())
                .isEqualTo(trace);
        assertThat(queue().claimDue("node-a", LEASE, 10))
                .extracting(Claim::schedule)
                .containsExactlyInAnyOrder(s, untraced)
                .extracting(Schedule::trace)
                .containsExactlyInAnyOrder(trace, null);
    }

    @Test
    void onlyDueDeliveriesAreClaimedEarliestFirst() {
        Schedule s = schedule(tenant, T0);
        Delivery later = delivery(s, T0.minusSeconds(1));
        Delivery earliest = delivery(s, T0.minusSeconds(5));
        delivery(s, T0.plusMillis(1));
        assertThat(queue().claimDue("n", LEASE, 1))
                .extracting(c -> c.delivery().id())
                .containsExactly(earliest.id());
        assertThat(queue().claimDue("n", LEASE, 10))
                .extracting(c -> c.delivery().id())
                .containsExactly(later.id());
        assertThat(queue().nextDueAt()).contains(T0.plusMillis(1));
        clock.advance(Duration.ofMillis(1));
        assertThat(queue().claimDue("n", LEASE, 10)).hasSize(1);
        assertThat(queue().nextDueAt()).isEmpty();
    }

    @Test
    void theLookAheadTakesFirstAttemptsOnlyAndNothingUnderFlowControl() {
        Schedule plain = schedule(tenant, T0);
        Schedule limited = scheduleTo("https://flow.example.com/", new dev.idem.core.FlowControl("k", null, 5));
        Delivery first = delivery(plain, T0.plusMillis(500));
        delivery(limited, T0.plusMillis(500));
        Delivery retry = delivery(plain, T0);
        Claim claimed = queue().claimDue("n", LEASE, 10).get(0);
        assertThat(claimed.delivery().id()).isEqualTo(retry.id());
        queue().complete(
                        "n",
                        List.of(new Outcome(
                                retry.id(),
                                new Attempt(ids.next("att"), retry.id(), 1, T0, 5, 500, null, null),
                                DeliveryStatus.RETRYING,
                                T0.plusMillis(500),
                                "HTTP 500")));

        assertThat(queue().claimDue("n", LEASE, 10, Duration.ofSeconds(1)))
                .as("the first attempt due in 500 ms only")
                .extracting(c -> c.delivery().id())
                .containsExactly(first.id());
        clock.advance(Duration.ofMillis(500));
        assertThat(queue().claimDue("n", LEASE, 10, Duration.ofSeconds(1)))
                .as("the retry and the flow-controlled one, once due")
                .hasSize(2);
    }

    @Test
    void aLookAheadClaimsDeliveriesDueWithinItAndNoLater() {
        Schedule s = schedule(tenant, T0);
        Delivery soon = delivery(s, T0.plusMillis(15));
        Delivery beyond = delivery(s, T0.plusMillis(25));
        assertThat(queue().claimDue("n", LEASE, 10)).isEmpty();
        assertThat(queue().claimDue("n", LEASE, 10, Duration.ofMillis(20)))
                .extracting(c -> c.delivery().id())
                .containsExactly(soon.id());
        assertThat(queue().nextDueAt()).contains(beyond.nextAttemptAt());
    }

    @Test
    void deliveriesOfPausedOrDeletedSchedulesAreNotClaimed() {
        Schedule paused = schedule(tenant, T0);
        Schedule deleted = schedule(tenant, T0);
        Schedule completed = schedule(tenant, T0);
        delivery(paused, T0);
        delivery(deleted, T0);
        Delivery ok = delivery(completed, T0);
        store.useTransaction(tx -> {
            tx.schedules().update(paused.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0));
            tx.schedules().update(deleted.withStatus(ScheduleStatus.DELETED, null, T0));
            tx.schedules().update(completed.withStatus(ScheduleStatus.COMPLETED, null, T0));
        });
        assertThat(queue().nextDueAt()).contains(T0);
        assertThat(queue().claimDue("n", LEASE, 10))
                .extracting(c -> c.delivery().id())
                .containsExactly(ok.id());
        assertThat(queue().nextDueAt()).isEmpty();

        store.useTransaction(tx -> tx.schedules().update(paused.withStatus(ScheduleStatus.ACTIVE, null, T0)));
        assertThat(queue().claimDue("n", LEASE, 10)).hasSize(1);
    }

    @Test
    void aReclaimedDeliverysLateOutcomeIsDroppedButItsAttemptKept() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim first = queue().claimDue("node-a", LEASE, 1).get(0);
        clock.advance(LEASE.plusMillis(1));
        assertThat(queue().reapExpired()).isEqualTo(1);
        Claim second = queue().claimDue("node-b", LEASE, 1).get(0);
        assertThat(second.delivery().attemptCount()).isEqualTo(2);

        Attempt late = attempt(d, first.delivery().attemptCount(), 200);
        assertThat(queue().complete("node-a", List.of(new Outcome(d.id(), late, DeliveryStatus.SUCCEEDED, null, null)))
                        .applied())
                .isEmpty();
        assertThat(find(d).status()).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(find(d).leaseOwner()).isEqualTo("node-b");

        Attempt current = attempt(d, 2, 200);
        assertThat(queue().complete(
                                "node-b", List.of(new Outcome(d.id(), current, DeliveryStatus.SUCCEEDED, null, null)))
                        .applied())
                .containsExactly(d.id());
        assertThat(find(d).status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(find(d).leaseOwner()).isNull();
        List<Attempt> history =
                store.inTransaction((StoreTx tx) -> tx.deliveries().attempts(d.id()));
        assertThat(history).extracting(Attempt::number).containsExactly(1, 2);
        // the late one was sent and is kept, but never reads as a second success
        assertThat(history.get(0).statusCode()).isEqualTo(200);
        assertThat(history.get(0).error()).startsWith("stale: ");
        assertThat(history)
                .filteredOn(Attempt::succeeded)
                .extracting(Attempt::number)
                .containsExactly(2);
    }

    @Test
    void theSameOwnerCannotCompleteAnEarlierClaimOfADeliveryItReclaimed() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        queue().claimDue("node-a", LEASE, 1);
        clock.advance(LEASE.plusMillis(1));
        queue().reapExpired();
        queue().claimDue("node-a", LEASE, 1);
        assertThat(queue().complete(
                                "node-a",
                                List.of(new Outcome(d.id(), attempt(d, 1, 200), DeliveryStatus.SUCCEEDED, null, null)))
                        .applied())
                .isEmpty();
        assertThat(queue().complete(
                                "node-a",
                                List.of(new Outcome(d.id(), attempt(d, 2, 200), DeliveryStatus.SUCCEEDED, null, null)))
                        .applied())
                .containsExactly(d.id());
    }

    @Test
    void outcomesSetRetryingOrDeadWithTheLastError() {
        List<Delivery> ds = dueDeliveries(2);
        queue().claimDue("n", LEASE, 10);
        Instant retryAt = T0.plusSeconds(30);
        List<String> applied = queue().complete(
                        "n",
                        List.of(
                                new Outcome(
                                        ds.get(0).id(),
                                        attempt(ds.get(0), 1, 503),
                                        DeliveryStatus.RETRYING,
                                        retryAt,
                                        "HTTP 503"),
                                new Outcome(
                                        ds.get(1).id(),
                                        attempt(ds.get(1), 1, 410),
                                        DeliveryStatus.DEAD,
                                        null,
                                        "HTTP 410")))
                .applied();
        assertThat(applied).containsExactly(ds.get(0).id(), ds.get(1).id());
        Delivery retrying = find(ds.get(0));
        assertThat(retrying.status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(retrying.nextAttemptAt()).isEqualTo(retryAt);
        assertThat(retrying.lastError()).isEqualTo("HTTP 503");
        assertThat(find(ds.get(1)).status()).isEqualTo(DeliveryStatus.DEAD);
        assertThat(queue().nextDueAt()).contains(retryAt);
        assertThat(queue().depth()).isEqualTo(1);
    }

    @Test
    void failuresCountUpAndPauseTheScheduleAtTheThreshold() {
        Schedule s = scheduleWithAutoPause(3);
        for (int i = 1; i <= 3; i++) {
            Delivery d = delivery(s, clock.instant().plusMillis(i));
            clock.advance(Duration.ofMillis(10));
            queue().claimDue("n", LEASE, 1);
            DeliveryQueue.Completed done = queue().complete(
                            "n",
                            List.of(new Outcome(d.id(), attempt(d, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500")));
            Schedule now = findSchedule(s);
            assertThat(now.consecutiveFailures()).isEqualTo(i);
            assertThat(now.status()).isEqualTo(i < 3 ? ScheduleStatus.ACTIVE : ScheduleStatus.PAUSED);
            assertThat(done.dead()).containsExactly(new DeliveryQueue.Dead(d.id(), s.id(), 1, "HTTP 500"));
            assertThat(done.autoPaused())
                    .isEqualTo(i < 3 ? List.of() : List.of(new DeliveryQueue.AutoPaused(s.id(), 3)));
        }
        assertThat(findSchedule(s).pausedReason()).isEqualTo(Schedule.PAUSED_BY_FAILURES);
    }

    @Test
    void aOneShotWhoseDeliveryExistsIsPausedAtTheThresholdToo() {
        Schedule s = scheduleWithAutoPause(1);
        store.useTransaction(
                tx -> tx.schedules().update(s.withStatus(ScheduleStatus.COMPLETED, null, clock.instant())));
        Delivery d = delivery(s, clock.instant());
        queue().claimDue("n", LEASE, 1);
        queue().complete(
                        "n",
                        List.of(new Outcome(
                                d.id(),
                                attempt(d, 1, 500),
                                DeliveryStatus.RETRYING,
                                clock.instant().plusSeconds(5),
                                "HTTP 500")));
        assertThat(findSchedule(s).status()).isEqualTo(ScheduleStatus.PAUSED);
        assertThat(findSchedule(s).pausedReason()).isEqualTo(Schedule.PAUSED_BY_FAILURES);
        clock.advance(Duration.ofSeconds(10));
        assertThat(queue().claimDue("n", LEASE, 10))
                .as("a paused schedule's retries wait for resume")
                .isEmpty();
    }

    @Test
    void aSuccessResetsTheFailureCounter() {
        Schedule s = scheduleWithAutoPause(3);
        List<Delivery> ds = new ArrayList<>();
        for (int i = 0; i < 4; i++) ds.add(delivery(s, T0.minusMillis(i)));
        queue().claimDue("n", LEASE, 10);
        queue().complete(
                        "n",
                        List.of(
                                new Outcome(
                                        ds.get(0).id(),
                                        attempt(ds.get(0), 1, 500),
                                        DeliveryStatus.DEAD,
                                        null,
                                        "HTTP 500"),
                                new Outcome(
                                        ds.get(1).id(),
                                        attempt(ds.get(1), 1, 500),
                                        DeliveryStatus.DEAD,
                                        null,
                                        "HTTP 500"),
                                new Outcome(
                                        ds.get(2).id(),
                                        attempt(ds.get(2), 1, 200),
                                        DeliveryStatus.SUCCEEDED,
                                        null,
                                        null),
                                new Outcome(
                                        ds.get(3).id(),
                                        attempt(ds.get(3), 1, 500),
                                        DeliveryStatus.DEAD,
                                        null,
                                        "HTTP 500")));
        Schedule after = findSchedule(s);
        assertThat(after.consecutiveFailures()).isEqualTo(1);
        assertThat(after.status()).isEqualTo(ScheduleStatus.ACTIVE);
    }

    @Test
    void aBatchOfOnlySuccessesResetsAStoredStreakAndLeavesAScheduleWithoutOneUntouched() {
        Schedule failing = scheduleWithAutoPause(5);
        Schedule healthy = scheduleWithAutoPause(5);
        Delivery first = delivery(failing, T0.minusMillis(3));
        queue().claimDue("n", LEASE, 10);
        queue().complete(
                        "n",
                        List.of(new Outcome(
                                first.id(), attempt(first, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500")));
        assertThat(findSchedule(failing).consecutiveFailures()).isEqualTo(1);
        Instant healthyUpdatedAt = findSchedule(healthy).updatedAt();

        clock.advance(Duration.ofSeconds(1));
        Delivery ok1 = delivery(failing, T0.minusMillis(2));
        Delivery ok2 = delivery(healthy, T0.minusMillis(1));
        queue().claimDue("n", LEASE, 10);
        List<String> applied = queue().complete(
                        "n",
                        List.of(
                                new Outcome(ok1.id(), attempt(ok1, 1, 200), DeliveryStatus.SUCCEEDED, null, null),
                                new Outcome(ok2.id(), attempt(ok2, 1, 200), DeliveryStatus.SUCCEEDED, null, null)))
                .applied();

        assertThat(applied).containsExactly(ok1.id(), ok2.id());
        assertThat(findSchedule(failing).consecutiveFailures()).isZero();
        assertThat(findSchedule(healthy).consecutiveFailures()).isZero();
        assertThat(findSchedule(healthy).updatedAt())
                .as("a counter already at 0 is not written")
                .isEqualTo(healthyUpdatedAt);
    }

    @Test
    void aCompletionNamesEachDeliveryThatWentDeadAndEachScheduleThatPausedItselfOnce() {
        Schedule s = scheduleWithAutoPause(2);
        List<Delivery> ds = new ArrayList<>();
        for (int i = 0; i < 3; i++) ds.add(delivery(s, T0.minusMillis(i)));
        queue().claimDue("n", LEASE, 10);
        Outcome dead = new Outcome(ds.get(0).id(), attempt(ds.get(0), 1, 500), DeliveryStatus.DEAD, null, "HTTP 500");
        DeliveryQueue.Completed first = queue().complete(
                        "n",
                        List.of(
                                dead,
                                new Outcome(
                                        ds.get(1).id(),
                                        attempt(ds.get(1), 1, 503),
                                        DeliveryStatus.RETRYING,
                                        clock.instant().plusSeconds(5),
                                        "HTTP 503")));
        assertThat(first.applied()).containsExactly(ds.get(0).id(), ds.get(1).id());
        assertThat(first.dead())
                .containsExactly(new DeliveryQueue.Dead(ds.get(0).id(), s.id(), 1, "HTTP 500"));
        assertThat(first.autoPaused()).containsExactly(new DeliveryQueue.AutoPaused(s.id(), 2));

        DeliveryQueue.Completed again = queue().complete("n", List.of(dead));
        assertThat(again.applied()).as("an outcome already applied is stale").isEmpty();
        assertThat(again.dead()).isEmpty();

        DeliveryQueue.Completed third = queue().complete(
                        "n",
                        List.of(new Outcome(
                                ds.get(2).id(),
                                attempt(ds.get(2), 1, 500),
                                DeliveryStatus.DEAD,
                                null,
                                "connection refused")));
        assertThat(third.dead())
                .containsExactly(new DeliveryQueue.Dead(ds.get(2).id(), s.id(), 1, "connection refused"));
        assertThat(third.autoPaused())
                .as("a schedule already paused does not pause again")
                .isEmpty();
    }

    @Test
    void aLargeBatchOfOutcomesAppliesEachToItsOwnDeliveryAndPausesEachFailingSchedule() {
        // large enough for PostgreSQL's completion to take its hash-join path (PgCompletion.withoutNestedLoops)
        List<Schedule> failing = new ArrayList<>();
        List<Delivery> failed = new ArrayList<>();
        List<Delivery> succeeded = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Schedule s = scheduleWithAutoPause(1);
            failing.add(s);
            failed.add(delivery(s, T0.minusMillis(i)));
        }
        for (int i = 0; i < 30; i++) succeeded.add(delivery(scheduleWithAutoPause(1), T0.minusMillis(100 + i)));
        assertThat(queue().claimDue("n", LEASE, 100)).hasSize(70);
        List<Outcome> outcomes = new ArrayList<>();
        for (Delivery d : failed)
            outcomes.add(new Outcome(d.id(), attempt(d, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500 " + d.id()));
        for (Delivery d : succeeded)
            outcomes.add(new Outcome(d.id(), attempt(d, 1, 200), DeliveryStatus.SUCCEEDED, null, null));
        Delivery staleOne = succeeded.get(0);
        outcomes.set(40, new Outcome(staleOne.id(), attempt(staleOne, 2, 200), DeliveryStatus.SUCCEEDED, null, null));

        DeliveryQueue.Completed done = queue().complete("n", outcomes);

        assertThat(done.applied()).hasSize(69).doesNotContain(staleOne.id());
        for (Delivery d : failed) {
            assertThat(find(d).status()).isEqualTo(DeliveryStatus.DEAD);
            assertThat(find(d).lastError()).isEqualTo("HTTP 500 " + d.id());
        }
        for (Delivery d : succeeded.subList(1, 30)) assertThat(find(d).status()).isEqualTo(DeliveryStatus.SUCCEEDED);
        assertThat(find(staleOne).status())
                .as("an outcome for another attempt applies nothing")
                .isEqualTo(DeliveryStatus.DELIVERING);
        for (Schedule s : failing) {
            assertThat(findSchedule(s).status()).isEqualTo(ScheduleStatus.PAUSED);
            assertThat(findSchedule(s).consecutiveFailures()).isEqualTo(1);
        }
        assertThat(done.autoPaused()).hasSize(40);
    }

    @Test
    void autoPauseZeroNeverPauses() {
        Schedule s = scheduleWithAutoPause(0);
        List<Delivery> ds = new ArrayList<>();
        for (int i = 0; i < 6; i++) ds.add(delivery(s, T0.minusMillis(i)));
        queue().claimDue("n", LEASE, 10);
        queue().complete(
                        "n",
                        ds.stream()
                                .map(d -> new Outcome(d.id(), attempt(d, 1, 500), DeliveryStatus.DEAD, null, "x"))
                                .toList());
        assertThat(findSchedule(s).consecutiveFailures()).isEqualTo(6);
        assertThat(findSchedule(s).status()).isEqualTo(ScheduleStatus.ACTIVE);
    }

    @Test
    void releaseExceptReturnsTheOwnersOtherLeasesAndKeepsTheNamedOnesAndOtherOwners() {
        dueDeliveries(4);
        List<Delivery> mine = queue().claimDue("node-a", LEASE, 3).stream()
                .map(c -> c.delivery())
                .toList();
        List<Delivery> theirs = queue().claimDue("node-b", LEASE, 1).stream()
                .map(c -> c.delivery())
                .toList();
        assertThat(mine).hasSize(3);
        assertThat(theirs).hasSize(1);

        int released = queue().releaseExcept("node-a", List.of(mine.get(0).id()));

        assertThat(released).isEqualTo(2);
        assertThat(find(mine.get(0)).leaseOwner()).isEqualTo("node-a");
        assertThat(find(mine.get(1)).status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(find(mine.get(1)).leaseOwner()).isNull();
        assertThat(find(mine.get(2)).status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(find(theirs.get(0)).leaseOwner()).isEqualTo("node-b");
        assertThat(queue().claimDue("node-c", LEASE, 10))
                .extracting(c -> c.delivery().id())
                .containsExactlyInAnyOrder(mine.get(1).id(), mine.get(2).id());
        assertThat(queue().releaseExcept("node-b", List.of())).isEqualTo(1);
    }

    @Test
    void reapReturnsOnlyExpiredLeasesDueNow() {
        List<Delivery> ds = dueDeliveries(3);
        queue().claimDue("node-a", Duration.ofSeconds(10), 2);
        clock.advance(Duration.ofSeconds(5));
        queue().claimDue("node-b", Duration.ofSeconds(10), 1);
        assertThat(queue().reapExpired()).isZero();
        Instant t = clock.advance(Duration.ofSeconds(6));
        assertThat(queue().reapExpired()).isEqualTo(2);
        List<Delivery> now = ds.stream().map(this::find).toList();
        assertThat(now)
                .filteredOn(d -> d.status() == DeliveryStatus.RETRYING)
                .hasSize(2)
                .allSatisfy(d -> {
                    assertThat(d.nextAttemptAt()).isEqualTo(t);
                    assertThat(d.leaseOwner()).isNull();
                    assertThat(d.attemptCount()).isEqualTo(1);
                });
        assertThat(now)
                .filteredOn(d -> d.status() == DeliveryStatus.DELIVERING)
                .extracting(Delivery::leaseOwner)
                .containsExactly("node-b");
    }

    @Test
    void releaseReturnsEveryLeaseOfTheOwner() {
        dueDeliveries(3);
        queue().claimDue("node-a", LEASE, 2);
        queue().claimDue("node-b", LEASE, 1);
        assertThat(queue().release("node-a")).isEqualTo(2);
        assertThat(queue().release("node-a")).isZero();
        assertThat(queue().claimDue("node-c", LEASE, 10))
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.delivery().attemptCount()).isEqualTo(2));
    }

    @Test
    void pruneDeletesOldFinishedDeliveriesAndTheirAttemptsInBatches() {
        List<Delivery> ds = dueDeliveries(5);
        queue().claimDue("n", LEASE, 10);
        queue().complete(
                        "n",
                        List.of(
                                new Outcome(
                                        ds.get(0).id(),
                                        attempt(ds.get(0), 1, 200),
                                        DeliveryStatus.SUCCEEDED,
                                        null,
                                        null),
                                new Outcome(ds.get(1).id(), attempt(ds.get(1), 1, 500), DeliveryStatus.DEAD, null, "x"),
                                new Outcome(
                                        ds.get(2).id(),
                                        attempt(ds.get(2), 1, 200),
                                        DeliveryStatus.SUCCEEDED,
                                        null,
                                        null),
                                new Outcome(
                                        ds.get(3).id(),
                                        attempt(ds.get(3), 1, 500),
                                        DeliveryStatus.RETRYING,
                                        T0.plusSeconds(5),
                                        "x")));
        clock.advance(Duration.ofDays(31));
        Instant cutoff = clock.instant().minus(Duration.ofDays(30));
        assertThat(queue().pruneFinished(cutoff, 2)).isEqualTo(2);
        assertThat(queue().pruneFinished(cutoff, 2)).isEqualTo(1);
        assertThat(queue().pruneFinished(cutoff, 2)).isZero();
        Set<String> left = new HashSet<>(
                store.inTransaction((StoreTx tx) -> tx.deliveries().list(tenant, null, null, 100, null)).data().stream()
                        .map(Delivery::id)
                        .toList());
        assertThat(left).containsExactlyInAnyOrder(ds.get(3).id(), ds.get(4).id());
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().attempts(ds.get(0).id())))
                .isEmpty();
        assertThat(store.inTransaction(
                        (StoreTx tx) -> tx.deliveries().attempts(ds.get(3).id())))
                .hasSize(1);
    }

    @Test
    void nowIsTheInjectedClockWhenTheDatabaseClockIsOff() {
        assertThat(queue().now()).isEqualTo(T0);
        clock.advance(Duration.ofMillis(1500));
        assertThat(queue().now()).isEqualTo(T0.plusMillis(1500));
    }

    Delivery find(Delivery d) {
        return store.inTransaction((StoreTx tx) -> tx.deliveries().find(d.tenant(), d.id()))
                .orElseThrow();
    }

    Schedule findSchedule(Schedule s) {
        return store.inTransaction((StoreTx tx) -> tx.schedules().find(s.tenant(), s.id()))
                .orElseThrow();
    }

    /** A schedule whose rule has ended (its cursor is null, as a one-shot's is once its delivery is written). */
    Schedule endedSchedule() {
        Schedule s = schedule(tenant, T0);
        store.useTransaction(tx -> tx.schedules().update(s.withCursor(null, 1, T0)));
        return s;
    }

    @Test
    void aScheduleWhoseRuleEndedIsCompletedWhenItsLastDeliveryBecomesFinalAndNotBefore() {
        Schedule ok = endedSchedule();
        Schedule dies = endedSchedule();
        Schedule recurring = schedule(tenant, T0.plusSeconds(3600));
        Delivery a = delivery(ok, T0);
        Delivery b = delivery(dies, T0);
        Delivery c = delivery(recurring, T0);
        queue().claimDue("n", LEASE, 10);
        queue().complete(
                        "n",
                        List.of(
                                new Outcome(a.id(), attempt(a, 1, 500), DeliveryStatus.RETRYING, T0, "HTTP 500"),
                                new Outcome(b.id(), attempt(b, 1, 500), DeliveryStatus.DEAD, null, "HTTP 500"),
                                new Outcome(c.id(), attempt(c, 1, 200), DeliveryStatus.SUCCEEDED, null, null)));
        assertThat(findSchedule(ok).status())
                .as("a retrying delivery is pending")
                .isEqualTo(ScheduleStatus.ACTIVE);
        assertThat(findSchedule(dies).status()).as("dead is final").isEqualTo(ScheduleStatus.COMPLETED);
        assertThat(findSchedule(recurring).status()).as("its rule goes on").isEqualTo(ScheduleStatus.ACTIVE);

        queue().claimDue("n", LEASE, 10);
        queue().complete("n", List.of(new Outcome(a.id(), attempt(a, 2, 200), DeliveryStatus.SUCCEEDED, null, null)));
        assertThat(findSchedule(ok).status()).isEqualTo(ScheduleStatus.COMPLETED);
    }

    @Test
    void aPausedScheduleIsNotCompletedByItsInFlightDeliveryFinishing() {
        Schedule s = endedSchedule();
        Delivery d = delivery(s, T0);
        queue().claimDue("n", LEASE, 10);
        Schedule paused = findSchedule(s).withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0);
        store.useTransaction(tx -> tx.schedules().update(paused));
        queue().complete("n", List.of(new Outcome(d.id(), attempt(d, 1, 200), DeliveryStatus.SUCCEEDED, null, null)));
        assertThat(findSchedule(s).status()).isEqualTo(ScheduleStatus.PAUSED);
    }

    @Test
    void twoNodesFinishingTheLastTwoDeliveriesOfOneScheduleAtOnceCompleteIt() throws Exception {
        for (int round = 0; round < 10; round++) {
            Schedule s = endedSchedule();
            Delivery x = delivery(s, T0);
            Delivery y = delivery(s, T0.minusMillis(1));
            Delivery cx = queue().claimDue("node-x", LEASE, 1).get(0).delivery();
            Delivery cy = queue().claimDue("node-y", LEASE, 1).get(0).delivery();
            AtomicInteger turn = new AtomicInteger();
            Race.run(2, () -> {
                boolean first = turn.getAndIncrement() == 0;
                Delivery mine = first ? cx : cy;
                return queue().complete(
                                first ? "node-x" : "node-y",
                                List.of(new Outcome(
                                        mine.id(), attempt(mine, 1, 200), DeliveryStatus.SUCCEEDED, null, null)));
            });
            assertThat(List.of(x.id(), y.id())).containsExactlyInAnyOrder(cx.id(), cy.id());
            assertThat(findSchedule(s).status()).as("round " + round).isEqualTo(ScheduleStatus.COMPLETED);
        }
    }

    Attempt attempt(Delivery d, int number, Integer statusCode) {
        boolean ok = statusCode != null && statusCode / 100 == 2;
        return new Attempt(
                ids.next("att"),
                d.id(),
                number,
                clock.instant(),
                10,
                statusCode,
                ok ? null : "HTTP " + statusCode,
                null);
    }

    /** A schedule delivering to {@code endpoint}, optionally with flow control. */
    Schedule scheduleTo(String endpoint, dev.idem.core.FlowControl flow) {
        Instant now = clock.instant();
        dev.idem.core.ScheduleDefinition d =
                definition(now).withEndpoint(endpoint).withFlowControl(flow);
        Schedule s = new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, d, now, 0, null, 0, now, now);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }

    /** {@code n} deliveries of {@code s}, due one millisecond apart ending now. */
    List<Delivery> due(Schedule s, int n, long offsetMs) {
        List<Delivery> out = new ArrayList<>();
        store.useTransaction(tx -> {
            for (int i = 0; i < n; i++) {
                Delivery d = Delivery.scheduled(
                        ids.next("dlv"), s, clock.instant().minusMillis(offsetMs + n - i), i + 1, clock.instant());
                tx.deliveries().insertIfAbsent(d);
                out.add(d);
            }
        });
        return out;
    }

    static long countOf(List<Claim> claims, Schedule s) {
        return claims.stream().filter(c -> c.schedule().id().equals(s.id())).count();
    }

    @Test
    void aClaimInterleavesDestinationsInsteadOfTakingTheOldestBacklogFirst() {
        Schedule busy = scheduleTo("https://busy.example.com/a", null);
        Schedule other = scheduleTo("https://OTHER.example.com:443/b", null);
        due(busy, 50, 1000); // all older than the other destination's rows
        due(other, 5, 0);

        List<Claim> claims = queue().claimDue("n", LEASE, 10, Duration.ZERO, DeliveryQueue.Fairness.NONE);

        assertThat(countOf(claims, other))
                .as("the other destination's rows, behind a backlog of 50")
                .isEqualTo(5);
        assertThat(countOf(claims, busy)).isEqualTo(5);
    }

    @Test
    void aDestinationWithoutFreeSlotsIsNotClaimedAndOthersAreCappedAtTheirFreeSlots() {
        Schedule full = scheduleTo("https://full.example.com/a", null);
        Schedule capped = scheduleTo("http://capped.example.com/b", null);
        Schedule fresh = scheduleTo("https://fresh.example.com/c", null);
        due(full, 20, 100);
        due(capped, 20, 50);
        due(fresh, 20, 0);
        var fairness = new DeliveryQueue.Fairness(
                java.util.Map.of("https://full.example.com:443/a", 0, "http://capped.example.com:80/b", 2), 3);

        List<Claim> claims = queue().claimDue("n", LEASE, 100, Duration.ZERO, fairness);

        assertThat(countOf(claims, full)).isZero();
        assertThat(countOf(claims, capped)).isEqualTo(2);
        assertThat(countOf(claims, fresh)).isEqualTo(3);
        assertThat(queue().nextDueAt(fairness))
                .as("the earliest row a claim could take")
                .contains(clock.instant().minusMillis(50 + 20 - 2));
    }

    @Test
    void rowsOfAnotherDestinationInTheMiddleOfAFullDestinationsBacklogAreClaimedOnlyByAClaimThatPassesOverIt() {
        // due among a full (hanging, say) destination's rows: neither among the earliest due nor among the latest
        Schedule full = scheduleTo("https://full.example.com/a", null);
        Schedule other = scheduleTo("https://other.example.com/b", null);
        due(full, 30, 100);
        List<Delivery> middle = due(other, 2, 60);
        due(full, 30, 0);
        var fairness = new DeliveryQueue.Fairness(java.util.Map.of("https://full.example.com:443/a", 0), 64);

        assertThat(queue().claimDue("n", LEASE, 10, Duration.ZERO, fairness))
                .as("the bounded claim: the earliest and the latest due rows only, all the full destination's")
                .isEmpty();
        assertThat(queue().claimDuePassingOver("n", LEASE, 10, Duration.ZERO, fairness))
                .as("the claim that passes over the full destination's rows")
                .extracting(c -> c.delivery().id())
                .containsExactlyInAnyOrderElementsOf(
                        middle.stream().map(Delivery::id).toList());
        assertThat(queue().claimDuePassingOver("n", LEASE, 10, Duration.ZERO, fairness))
                .as("nothing else a claim may take: the full destination's rows stay in the table")
                .isEmpty();
    }

    @Test
    void theNextDueRowOfAnotherDestinationIsFoundBehindAFullDestinationsBacklog() {
        // more rows than the store reads per window when it looks for the next row (256 on PostgreSQL and SQLite)
        Schedule full = scheduleTo("https://full.example.com/a", null);
        Schedule other = scheduleTo("https://other.example.com/b", null);
        due(full, 300, 0);
        Delivery next = delivery(other, clock.instant().plusSeconds(2));
        var fairness = new DeliveryQueue.Fairness(java.util.Map.of("https://full.example.com:443/a", 0), 64);

        assertThat(queue().nextDueAt(fairness))
                .as("the other destination's row, behind 300 due rows of the full one")
                .contains(next.nextAttemptAt());
        assertThat(queue().nextDueAt())
                .as("with a slot free, the full destination's earliest row")
                .contains(clock.instant().minusMillis(300));
    }

    @Test
    void aChangedEndpointMovesTheSchedulesDeliveriesToItsNewDestination() {
        Schedule s = scheduleTo("https://old.example.com/a", null);
        due(s, 3, 0);
        store.useTransaction(tx -> tx.schedules()
                .update(s.withDefinition(s.definition().withEndpoint("https://new.example.com/b"), clock.instant())));
        // the same destination as the new endpoint: a query string is not part of it
        Schedule other = scheduleTo("https://new.example.com/b?tenant=z", null);
        due(other, 2, 0);

        var newFull = new DeliveryQueue.Fairness(java.util.Map.of("https://new.example.com:443/b", 0), 10);
        assertThat(queue().claimDue("n", LEASE, 10, Duration.ZERO, newFull))
                .as("the new destination is full")
                .isEmpty();
        var oldFull = new DeliveryQueue.Fairness(java.util.Map.of("https://old.example.com:443/a", 0), 10);
        assertThat(queue().claimDue("n", LEASE, 10, Duration.ZERO, oldFull)).hasSize(5);
    }

    @Test
    void aClaimHeldAheadIsConfirmedOnlyWhileItIsStillThisClaimAndItsScheduleActiveAndUnchanged() {
        Schedule ok = schedule(tenant, T0);
        Schedule paused = schedule(tenant, T0);
        Schedule deleted = schedule(tenant, T0);
        Schedule changed = schedule(tenant, T0);
        Schedule taken = schedule(tenant, T0);
        List<Claim> held = heldAhead(ok, paused, deleted, changed, taken);
        store.useTransaction(tx -> {
            tx.schedules().update(paused.withStatus(ScheduleStatus.PAUSED, Schedule.PAUSED_BY_USER, T0));
            tx.schedules().update(deleted.withStatus(ScheduleStatus.DELETED, null, T0));
            tx.schedules()
                    .update(changed.withDefinition(changed.definition().withEndpoint("https://example.com/moved"), T0));
        });
        Claim takenClaim = claimOf(held, taken);
        queue().unclaim("node-a", List.of(takenClaim));
        assertThat(queue().claimDue("node-b", LEASE, 10, Duration.ofSeconds(1)))
                .extracting(c -> c.delivery().id())
                .containsExactly(takenClaim.delivery().id());

        assertThat(queue().confirmHeld("node-a", held))
                .extracting(c -> c.delivery().id())
                .containsExactly(claimOf(held, ok).delivery().id());

        Delivery keptOk = find(claimOf(held, ok).delivery());
        assertThat(keptOk.status()).isEqualTo(DeliveryStatus.DELIVERING);
        assertThat(keptOk.leaseOwner()).isEqualTo("node-a");
        Delivery backPaused = find(claimOf(held, paused).delivery());
        assertThat(backPaused.status()).as("given back, unattempted").isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(backPaused.attemptCount()).isZero();
        assertThat(backPaused.leaseOwner()).isNull();
        Delivery cancelled = find(claimOf(held, deleted).delivery());
        assertThat(cancelled.status()).isEqualTo(DeliveryStatus.CANCELLED);
        assertThat(cancelled.attemptCount()).isZero();
        assertThat(cancelled.leaseOwner()).isNull();
        assertThat(find(takenClaim.delivery()).leaseOwner())
                .as("another node's claim is left alone")
                .isEqualTo("node-b");
        assertThat(queue().claimDue("node-c", LEASE, 10, Duration.ofSeconds(1)))
                .as("the changed schedule's delivery, claimed again with its new definition")
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.delivery().id())
                            .isEqualTo(claimOf(held, changed).delivery().id());
                    assertThat(c.delivery().attemptCount()).isEqualTo(1);
                    assertThat(c.schedule().definition().endpoint()).isEqualTo("https://example.com/moved");
                });
    }

    @Test
    void aHeldClaimGoesBackWhenItsDefinitionChangesButStartsWhenOnlyTheRestOfItsScheduleRowMoved() {
        Schedule patched = schedule(tenant, T0);
        Schedule rewritten = schedule(tenant, T0);
        Schedule materialised = schedule(tenant, T0);
        Schedule failing = schedule(tenant, T0);
        Delivery dueNow = delivery(failing, T0);
        assertThat(queue().claimDue("node-a", LEASE, 10)).hasSize(1);
        List<Claim> held = heldAhead(patched, rewritten, materialised, failing);

        clock.advance(Duration.ofMillis(100));
        Instant later = clock.instant();
        store.useTransaction(tx -> {
            // a PATCH: a new definition
            tx.schedules()
                    .update(patched.withDefinition(
                            patched.definition().withEndpoint("https://example.com/moved"), later));
            // the API's reset of the failure count: the whole row written again, the same definition
            tx.schedules().update(rewritten.withConsecutiveFailures(0, later));
            // the materialiser moving the cursor
            assertThat(tx.schedules()
                            .advanceCursors(
                                    List.of(new ScheduleRepository.CursorMove(
                                            materialised.id(), T0, T0.plusSeconds(3600), 2)),
                                    later))
                    .containsExactly(materialised.id());
        });
        // the schedule's other delivery fails: the completion counts the failure on the schedule's row
        queue().complete(
                        "node-a",
                        List.of(new Outcome(
                                dueNow.id(),
                                new Attempt(ids.next("att"), dueNow.id(), 1, later, 5, 500, null, null),
                                DeliveryStatus.RETRYING,
                                later.plusSeconds(60),
                                "HTTP 500")));
        for (Schedule s : List.of(rewritten, materialised, failing))
            assertThat(findSchedule(s).updatedAt()).as("the row moved").isAfter(T0);
        assertThat(findSchedule(failing).consecutiveFailures()).isEqualTo(1);

        assertThat(queue().confirmHeld("node-a", held))
                .extracting(c -> c.schedule().id())
                .containsExactlyInAnyOrder(rewritten.id(), materialised.id(), failing.id());
        Delivery back = find(claimOf(held, patched).delivery());
        assertThat(back.status()).as("given back, unattempted").isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(back.attemptCount()).isZero();
        assertThat(queue().claimDue("node-b", LEASE, 10, Duration.ofSeconds(1)))
                .as("claimed again with its new definition")
                .singleElement()
                .satisfies(
                        c -> assertThat(c.schedule().definition().endpoint()).isEqualTo("https://example.com/moved"));
    }

    /** A delivery of each schedule due 500 ms from now, all claimed ahead by node-a. */
    private List<Claim> heldAhead(Schedule... schedules) {
        for (Schedule s : schedules) delivery(s, T0.plusMillis(500));
        List<Claim> held = queue().claimDue("node-a", LEASE, 10, Duration.ofSeconds(1));
        assertThat(held).hasSize(schedules.length);
        return held;
    }

    private static Claim claimOf(List<Claim> claims, Schedule s) {
        return claims.stream()
                .filter(c -> c.schedule().id().equals(s.id()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void unclaimReturnsAnUnattemptedDeliveryAsItWasBeforeItsClaim() {
        Schedule s = schedule(tenant, T0);
        Delivery d = delivery(s, T0);
        Claim c = queue().claimDue("node-a", LEASE, 10).get(0);
        assertThat(queue().unclaim("node-b", List.of(c)))
                .as("another owner's claim")
                .isZero();

        assertThat(queue().unclaim("node-a", List.of(c))).isEqualTo(1);

        Delivery back =
                store.inTransaction(tx -> tx.deliveries().find(tenant, d.id())).orElseThrow();
        assertThat(back.status()).isEqualTo(DeliveryStatus.SCHEDULED);
        assertThat(back.attemptCount()).isZero();
        assertThat(back.leaseOwner()).isNull();
        assertThat(back.nextAttemptAt()).isEqualTo(T0);
        assertThat(queue().claimDue("node-b", LEASE, 10))
                .singleElement()
                .satisfies(again -> assertThat(again.delivery().attemptCount()).isEqualTo(1));
    }

    @Test
    void flowControlParallelismCountsLiveClaimsOfTheKeyAcrossSchedulesAndOwners() {
        var flow = new dev.idem.core.FlowControl("acme", 3, null);
        Schedule one = scheduleTo("https://a.example.com/", flow);
        Schedule two = scheduleTo("https://b.example.com/", flow);
        Schedule free = scheduleTo("https://c.example.com/", null);
        due(one, 5, 10);
        due(two, 5, 0);
        due(free, 5, 0);

        List<Claim> first = queue().claimDue("node-a", LEASE, 2);
        List<Claim> second = queue().claimDue("node-b", LEASE, 100);
        List<Claim> third = queue().claimDue("node-c", LEASE, 100);

        long flowA = countOf(first, one) + countOf(first, two);
        long flowB = countOf(second, one) + countOf(second, two);
        assertThat(flowA + flowB).as("claims of key acme in flight").isEqualTo(3);
        assertThat(countOf(third, one) + countOf(third, two)).isZero();
        assertThat(countOf(first, free) + countOf(second, free)).isEqualTo(5);

        Claim done = (flowA > 0 ? first : second)
                .stream()
                        .filter(c -> c.schedule().definition().flowControl() != null)
                        .findFirst()
                        .orElseThrow();
        queue().complete(
                        done.delivery().leaseOwner(),
                        List.of(new Outcome(
                                done.delivery().id(),
                                new Attempt(ids.next("att"), done.delivery().id(), 1, T0, 5, 200, null, null),
                                DeliveryStatus.SUCCEEDED,
                                null,
                                null)));
        assertThat(queue().claimDue("node-c", LEASE, 100))
                .as("one slot of the key freed")
                .hasSize(1);
    }

    @Test
    void flowControlRateLimitsClaimsPerSecondOfTheStoresClock() {
        Schedule s = scheduleTo("https://rated.example.com/", new dev.idem.core.FlowControl("rated", null, 4));
        due(s, 10, 0);

        assertThat(queue().claimDue("n", LEASE, 3)).hasSize(3);
        assertThat(queue().claimDue("m", LEASE, 100)).hasSize(1);
        assertThat(queue().claimDue("n", LEASE, 100)).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(queue().claimDue("n", LEASE, 100)).hasSize(4);
    }

    @Test
    void aScheduleWrittenWithoutItsRoutingColumnsGetsThemFilled() throws Exception {
        Schedule s = scheduleTo("https://late.example.com/x", new dev.idem.core.FlowControl("k", 2, null));
        clearRouting(s.id());

        assertThat(queue().fillRouting(10)).isEqualTo(1);
        assertThat(queue().fillRouting(10)).isZero();
        due(s, 3, 0);
        assertThat(queue().claimDue("n", LEASE, 10))
                .as("its flow control applies again")
                .hasSize(2);
    }

    @Test
    void aDeliveryWhoseStoredDefinitionCannotBeReadIsDeadWithAnAttemptSayingWhyAndTheOthersAreClaimed()
            throws Exception {
        undecodableDefinitionIsBuried(false);
    }

    @Test
    void aDeliveryWhoseStoredDefinitionCannotBeReadIsDeadAlsoWhenAClaimTakesTheFlowControlPath() throws Exception {
        undecodableDefinitionIsBuried(true);
    }

    private void undecodableDefinitionIsBuried(boolean withFlowControlElsewhere) throws Exception {
        if (withFlowControlElsewhere)
            scheduleTo("https://flow.example.com/", new dev.idem.core.FlowControl("k", 5, null));
        Schedule good = schedule(tenant, T0);
        Schedule bad = schedule(tenant, T0);
        Delivery ok = delivery(good, T0);
        Delivery broken = delivery(bad, T0);
        Delivery broken2 = delivery(bad, T0.minusSeconds(1));
        execute("UPDATE schedules SET definition = ? WHERE id = ?", "{\"no\": \"definition\"", bad.id());

        assertThat(queue().claimDue("n", LEASE, 10))
                .extracting(c -> c.delivery().id())
                .containsExactly(ok.id());
        assertThat(queue().claimDue("n", LEASE, 10))
                .as("claimed once, not again and again")
                .isEmpty();
        for (Delivery d : List.of(broken, broken2)) {
            Delivery after = store.inTransaction((StoreTx tx) -> tx.deliveries().find(tenant, d.id()))
                    .orElseThrow();
            assertThat(after.status()).isEqualTo(DeliveryStatus.DEAD);
            assertThat(after.leaseOwner()).isNull();
            assertThat(after.lastError())
                    .startsWith("not sent: the stored definition of schedule " + bad.id() + " cannot be read");
            List<Attempt> attempts =
                    store.inTransaction((StoreTx tx) -> tx.deliveries().attempts(d.id()));
            assertThat(attempts).singleElement().satisfies(a -> {
                assertThat(a.number()).isEqualTo(1);
                assertThat(a.statusCode()).isNull();
                assertThat(a.error()).isEqualTo(after.lastError());
            });
        }
        assertThat(queue().depth()).as("the good one, claimed").isEqualTo(1);
    }

    /** Runs one statement on a connection of its own (rows as a writer outside the store leaves them). */
    void execute(String statement, Object... args) throws java.sql.SQLException {
        var config = database.config();
        java.util.Properties p = new java.util.Properties();
        if (config.user() != null) p.setProperty("user", config.user());
        if (config.password() != null) p.setProperty("password", config.password());
        try (var c = java.sql.DriverManager.getConnection(config.jdbcUrl(), p);
                var st = c.prepareStatement(statement)) {
            for (int i = 0; i < args.length; i++) st.setObject(i + 1, args[i]);
            assertThat(st.executeUpdate()).isEqualTo(1);
        }
    }

    /** Sets a schedule's routing columns back to NULL, as a writer unaware of them leaves a row. */
    void clearRouting(String scheduleId) throws java.sql.SQLException {
        execute(
                "UPDATE schedules SET destination = NULL, flow_key = NULL, flow_parallelism = NULL, flow_rate = NULL WHERE id = ?",
                scheduleId);
    }
}
