package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.InternalOneShots;
import dev.idem.core.Origin;
import dev.idem.core.Schedule;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.store.internal.GroupCommitHooks;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit ({@link dev.idem.core.store.Store#inGroupCommit}): concurrent callers' works share one transaction,
 * each gets its own answer, none before the COMMIT. A first work holds the writer so that the works under test queue
 * behind it and form the next group together.
 */
abstract class GroupCommitContract extends StoreTestBase {
    private CountDownLatch release;
    /** The transaction each call of a work under test ran in, in call order. */
    private List<StoreTx> seen;

    @BeforeEach
    void fresh() {
        release = new CountDownLatch(1);
        seen = new CopyOnWriteArrayList<>();
    }

    @AfterEach
    void noHook() {
        GroupCommitHooks.beforeCommit(store, null);
        release.countDown();
    }

    private InternalOneShots.Created event(StoreTx tx, String dedupId) {
        seen.add(tx);
        InternalOneShots.Request r = InternalOneShots.Request.of(
                        tenant,
                        Origin.source("src_1"),
                        "https://example.com/in",
                        "{}".getBytes(StandardCharsets.UTF_8),
                        "application/json")
                .withDedupId(dedupId);
        return InternalOneShots.create(tx, ids, r, clock.instant());
    }

    /** Holds the writer in a group of its own until {@link #release}. */
    private CompletableFuture<Object> holdWriter() throws InterruptedException {
        CountDownLatch inside = new CountDownLatch(1);
        CompletableFuture<Object> held = CompletableFuture.supplyAsync(() -> store.inGroupCommit(tx -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return null;
        }));
        inside.await();
        return held;
    }

    /** Starts each work on a thread of its own, in order, each once the one before waits for its answer. */
    @SafeVarargs
    private List<CompletableFuture<Object>> queued(Function<StoreTx, Object>... works) {
        List<CompletableFuture<Object>> answers = new java.util.ArrayList<>();
        for (Function<StoreTx, Object> w : works) {
            CompletableFuture<Object> answer = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    answer.complete(store.inGroupCommit(w));
                } catch (Throwable e) {
                    answer.completeExceptionally(e);
                }
            });
            t.start();
            answers.add(answer);
            // a caller parks only after its work is queued (the writer is held, so none can have been answered)
            while (t.getState() != Thread.State.WAITING) {
                if (!t.isAlive()) throw new AssertionError("a work was answered while the writer was held");
                Thread.onSpinWait();
            }
        }
        return answers;
    }

    private static Throwable failureOf(CompletableFuture<Object> f) {
        try {
            f.get();
            throw new AssertionError("expected a failure, got " + f.join());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void concurrentWorksShareOneTransactionAndEachGetsItsOwnResultASecondDedupIdFindingTheFirst() throws Exception {
        CompletableFuture<Object> held = holdWriter();
        List<CompletableFuture<Object>> answers =
                queued(tx -> event(tx, "evt_a"), tx -> event(tx, "evt_b"), tx -> event(tx, "evt_a"));
        release.countDown();
        held.get();

        var a = (InternalOneShots.Created) answers.get(0).get();
        var b = (InternalOneShots.Created) answers.get(1).get();
        var again = (InternalOneShots.Created) answers.get(2).get();
        assertThat(seen).hasSize(3);
        assertThat(seen).as("one transaction for the three").allMatch(tx -> tx == seen.get(0));
        assertThat(a.deduplicated()).isFalse();
        assertThat(b.deduplicated()).isFalse();
        assertThat(again.deduplicated()).isTrue();
        assertThat(again.deliveryId()).isEqualTo(a.deliveryId());
        assertThat(stored(a.scheduleId())).isTrue();
        assertThat(stored(b.scheduleId())).isTrue();
        assertThat(GroupCommitHooks.counts(store)[2])
                .as("no group ran again work by work")
                .isZero();
    }

    @Test
    void aFailingWorkADedupHitAndAValidWorkInOneGroupEachGetTheirOwnAnswer() throws Exception {
        InternalOneShots.Created first = store.inTransaction(tx -> event(tx, "evt_taken"));
        Schedule existing = store.inReadTransaction(tx -> tx.schedules().find(tenant, first.scheduleId()))
                .orElseThrow();
        seen.clear();
        CompletableFuture<Object> held = holdWriter();
        List<CompletableFuture<Object>> answers =
                queued(tx -> event(tx, "evt_taken"), tx -> event(tx, "evt_new"), tx -> {
                    seen.add(tx);
                    tx.schedules().insert(existing); // its primary key is taken: the database refuses the row
                    return "inserted";
                });
        release.countDown();
        held.get();

        var dup = (InternalOneShots.Created) answers.get(0).get();
        assertThat(dup.deduplicated()).isTrue();
        assertThat(dup.deliveryId()).isEqualTo(first.deliveryId());
        var created = (InternalOneShots.Created) answers.get(1).get();
        assertThat(created.deduplicated()).isFalse();
        assertThat(stored(created.scheduleId())).isTrue();
        assertThat(failureOf(answers.get(2))).isInstanceOf(StoreException.class);
        assertThat(seen.subList(0, 3)).as("the three first ran in one group").allMatch(tx -> tx == seen.get(0));
        assertThat(seen.subList(3, 6))
                .as("then each in a transaction of its own")
                .doesNotHaveDuplicates();
        assertThat(store.inReadTransaction(tx -> tx.deliveries().listBySource(tenant, "src_1", null, 100, null))
                        .data())
                .as("the first event's delivery and the new one's, once each")
                .hasSize(2);
    }

    @Test
    void aDedupHitOnACommittedEventRunsAloneWhileItsNeighboursCommitAsAGroup() throws Exception {
        InternalOneShots.Created first = store.inTransaction(tx -> event(tx, "evt_before"));
        seen.clear();
        long rerunBefore = GroupCommitHooks.counts(store)[2];
        CompletableFuture<Object> held = holdWriter();
        List<CompletableFuture<Object>> answers =
                queued(tx -> event(tx, "evt_one"), tx -> event(tx, "evt_before"), tx -> event(tx, "evt_two"));
        release.countDown();
        held.get();

        var one = (InternalOneShots.Created) answers.get(0).get();
        var hit = (InternalOneShots.Created) answers.get(1).get();
        var two = (InternalOneShots.Created) answers.get(2).get();
        assertThat(hit.deduplicated()).isTrue();
        assertThat(hit.scheduleId()).isEqualTo(first.scheduleId());
        assertThat(hit.deliveryId()).isEqualTo(first.deliveryId());
        assertThat(one.deduplicated()).isFalse();
        assertThat(two.deduplicated()).isFalse();
        assertThat(stored(one.scheduleId())).isTrue();
        assertThat(stored(two.scheduleId())).isTrue();
        assertThat(stored(hit.scheduleId())).isTrue();
        // the group of three (rolled back when its reservations were written), the two again as a group, the hit alone
        assertThat(seen).hasSize(6);
        assertThat(seen.get(3))
                .as("the two neighbours again, in one transaction")
                .isSameAs(seen.get(4));
        assertThat(seen.get(5)).as("the hit alone").isNotSameAs(seen.get(3));
        assertThat(GroupCommitHooks.counts(store)[2] - rerunBefore).isEqualTo(1);
        assertThat(store.inReadTransaction(tx -> tx.deliveries().listBySource(tenant, "src_1", null, 100, null))
                        .data())
                .as("one delivery per event, the hit writing none")
                .hasSize(3);
    }

    @Test
    void aWorkReadsWhatAnEarlierWorkOfItsGroupWrote() throws Exception {
        CompletableFuture<Object> held = holdWriter();
        List<CompletableFuture<Object>> answers = queued(tx -> event(tx, "evt_read"), tx -> {
            seen.add(tx);
            return tx.deliveries()
                    .listBySource(tenant, "src_1", null, 100, null)
                    .data()
                    .size();
        });
        release.countDown();
        held.get();

        var c = (InternalOneShots.Created) answers.get(0).get();
        assertThat(c.deduplicated()).isFalse();
        assertThat(answers.get(1).get())
                .as("the first work's delivery, read in the same transaction")
                .isEqualTo(1);
        assertThat(seen).hasSize(2).allMatch(tx -> tx == seen.get(0));
    }

    /**
     * The endpoints a send fans out to are read once per group and shared by its later works, until a work of the group
     * writes anything else than its held inserts: from then on they are read again, and see that write.
     */
    @Test
    void aGroupSharesOneReadOfTheEndpointsUntilOneOfItsWorksChangesThem() throws Exception {
        Function<StoreTx, Object> active = tx -> {
            seen.add(tx);
            return tx.endpoints().active(tenant, null);
        };
        CompletableFuture<Object> held = holdWriter();
        List<CompletableFuture<Object>> answers = queued(
                active,
                active,
                tx -> {
                    seen.add(tx);
                    tx.endpoints().insert(endpoint(tenant, null));
                    return null;
                },
                active);
        release.countDown();
        held.get();

        List<?> first = (List<?>) answers.get(0).get();
        answers.get(2).get();
        assertThat(answers.get(1).get())
                .as("the second send's read is the first's")
                .isSameAs(first);
        assertThat((List<?>) answers.get(3).get())
                .as("read again after the group wrote an endpoint")
                .hasSize(first.size() + 1);
        assertThat(seen).as("one group").hasSize(4).allMatch(tx -> tx == seen.get(0));
    }

    @Test
    void noCallerIsAnsweredBeforeTheGroupCommits() throws Exception {
        CountDownLatch atCommit = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        GroupCommitHooks.beforeCommit(store, () -> {
            atCommit.countDown();
            try {
                commit.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        List<CompletableFuture<Object>> answers = queued(tx -> event(tx, "evt_wait"));
        atCommit.await();
        assertThat(answers.get(0)).as("its work ran, its COMMIT has not").isNotDone();
        commit.countDown();
        var c = (InternalOneShots.Created) answers.get(0).get();
        assertThat(stored(c.scheduleId())).isTrue();
    }

    @Test
    void aFailureBetweenTheGroupAndItsCommitFailsEveryCallerAndWritesNoneOfTheGroup() throws Exception {
        CompletableFuture<Object> held = holdWriter();
        List<String> written = new CopyOnWriteArrayList<>();
        Function<StoreTx, Object> work = tx -> {
            InternalOneShots.Created c = event(tx, null);
            written.add(c.scheduleId());
            return c;
        };
        Function<StoreTx, Object> deduplicated = tx -> {
            InternalOneShots.Created c = event(tx, "evt_crash");
            written.add(c.scheduleId());
            return c;
        };
        List<CompletableFuture<Object>> answers = queued(work, deduplicated, work);
        GroupCommitHooks.beforeCommit(store, () -> {
            // the holding group commits; the group under test, whose works have run, does not
            if (!written.isEmpty()) throw new StoreException("the node died before COMMIT", null, true);
        });
        release.countDown();
        held.get();

        for (CompletableFuture<Object> a : answers)
            assertThat(failureOf(a)).isInstanceOf(StoreException.class).hasMessageContaining("before COMMIT");
        assertThat(written).hasSize(3);
        for (String id : written) assertThat(stored(id)).as(id).isFalse();

        GroupCommitHooks.beforeCommit(store, null);
        var after = (InternalOneShots.Created) store.inGroupCommit(tx -> event(tx, null));
        assertThat(stored(after.scheduleId())).isTrue();
        var retried = (InternalOneShots.Created) store.inGroupCommit(tx -> event(tx, "evt_crash"));
        assertThat(retried.deduplicated())
                .as("the rolled-back group's dedup reservation was not written either")
                .isFalse();
    }

    @Test
    void groupedWorkInsideATransactionIsRefusedRatherThanWaitingForever() {
        assertThatThrownBy(() -> store.inTransaction(tx -> store.inGroupCommit(inner -> 1)))
                .isInstanceOf(IllegalStateException.class);
    }

    private boolean stored(String scheduleId) {
        return store.inReadTransaction(tx -> tx.schedules().find(tenant, scheduleId))
                .isPresent();
    }
}
