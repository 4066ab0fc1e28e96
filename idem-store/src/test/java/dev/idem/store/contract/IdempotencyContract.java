package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.DedupClaim;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Mode;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreTx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

abstract class IdempotencyContract extends StoreTestBase {
    IdempotencyRecord inProgress(Tenant t, String key, String fingerprint, Instant lockedUntil) {
        return new IdempotencyRecord(t, key, fingerprint, clock.instant(), lockedUntil, null, null);
    }

    @Test
    void exactlyOneRacerInsertsAKey() throws Exception {
        List<Boolean> won = Race.run(
                8,
                () -> store.inTransaction(
                        tx -> tx.idempotency().tryInsert(inProgress(tenant, "k1", "fp", T0.plusSeconds(30)))));
        assertThat(won).containsOnlyOnce(true);
    }

    @Test
    void keysAreScopedByTenant() {
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().tryInsert(inProgress(tenant, "k", "fp", T0))))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().tryInsert(inProgress(new Tenant("prj_b", Mode.TEST), "k", "fp", T0))))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency()
                        .tryInsert(inProgress(new Tenant(tenant.projectId(), Mode.LIVE), "k", "fp", T0))))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().find(new Tenant("prj_c", Mode.TEST), "k")))
                .isEmpty();
    }

    @Test
    void aCompletedRecordReplaysItsResponse() {
        store.useTransaction(tx -> tx.idempotency().tryInsert(inProgress(tenant, "k", "fp", T0.plusSeconds(30))));
        IdempotencyRecord running = store.inTransaction(
                        (StoreTx tx) -> tx.idempotency().find(tenant, "k"))
                .orElseThrow();
        assertThat(running.completed()).isFalse();
        assertThat(running.lockedUntil()).isEqualTo(T0.plusSeconds(30));

        byte[] body = "{\"id\":\"sch_1\"}".getBytes(StandardCharsets.UTF_8);
        store.useTransaction(tx -> tx.idempotency().complete(tenant, "k", 201, body));
        IdempotencyRecord done = store.inTransaction(
                        (StoreTx tx) -> tx.idempotency().find(tenant, "k"))
                .orElseThrow();
        assertThat(done.completed()).isTrue();
        assertThat(done.responseStatus()).isEqualTo(201);
        assertThat(done.responseBody()).isEqualTo(body);
        assertThat(done.fingerprint()).isEqualTo("fp");
        assertThat(done.createdAt()).isEqualTo(T0);
    }

    @Test
    void onlyAnExpiredInProgressRecordCanBeTakenOver() {
        store.useTransaction(tx -> tx.idempotency().tryInsert(inProgress(tenant, "k", "fp1", T0.plusSeconds(30))));
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().takeOverExpired(tenant, "k", "fp2", T0.plusSeconds(10), T0.plusSeconds(40))))
                .isFalse();
        List<Boolean> won = raceTakeOver();
        assertThat(won).containsOnlyOnce(true);
        IdempotencyRecord r = store.inTransaction(
                        (StoreTx tx) -> tx.idempotency().find(tenant, "k"))
                .orElseThrow();
        assertThat(r.fingerprint()).isEqualTo("fp2");
        assertThat(r.lockedUntil()).isEqualTo(T0.plusSeconds(91));

        store.useTransaction(tx -> tx.idempotency().complete(tenant, "k", 200, new byte[0]));
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency()
                        .takeOverExpired(
                                tenant, "k", "fp3", T0.plus(Duration.ofHours(1)), T0.plus(Duration.ofHours(2)))))
                .isFalse();
    }

    private List<Boolean> raceTakeOver() {
        try {
            return Race.run(
                    4,
                    () -> store.inTransaction(tx -> tx.idempotency()
                            .takeOverExpired(tenant, "k", "fp2", T0.plusSeconds(31), T0.plusSeconds(91))));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void deleteReleasesTheKey() {
        store.useTransaction(tx -> tx.idempotency().tryInsert(inProgress(tenant, "k", "fp", T0)));
        store.useTransaction(tx -> tx.idempotency().delete(tenant, "k"));
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().find(tenant, "k")))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().tryInsert(inProgress(tenant, "k", "fp", T0))))
                .isTrue();
    }

    @Test
    void pruneDeletesRecordsCreatedBeforeTheCutoffInBatches() {
        for (int i = 0; i < 5; i++) {
            String key = "old" + i;
            store.useTransaction(tx -> tx.idempotency().tryInsert(inProgress(tenant, key, "fp", T0)));
        }
        clock.advance(Duration.ofHours(25));
        store.useTransaction(tx -> tx.idempotency().tryInsert(inProgress(tenant, "new", "fp", clock.instant())));
        Instant cutoff = clock.instant().minus(Duration.ofHours(24));
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().pruneCreatedBefore(cutoff, 3)))
                .isEqualTo(3);
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().pruneCreatedBefore(cutoff, 3)))
                .isEqualTo(2);
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().pruneCreatedBefore(cutoff, 3)))
                .isZero();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().find(tenant, "new")))
                .isPresent();
    }

    @Test
    void aDedupClaimIsReadBackWithItsScheduleAndHoldsItsKeyUntilDeleted() {
        DedupClaim first = new DedupClaim(tenant, "dedup\nevt_1", "sch_1", T0);
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().tryInsertDedup(first)))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().tryInsertDedup(new DedupClaim(tenant, "dedup\nevt_1", "sch_2", T0))))
                .isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().findDedup(tenant, "dedup\nevt_1")))
                .contains(first);
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().findDedup(new Tenant(tenant.projectId(), Mode.LIVE), "dedup\nevt_1")))
                .isEmpty();

        store.useTransaction(tx -> tx.idempotency().deleteDedup(tenant, "dedup\nevt_1"));
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().findDedup(tenant, "dedup\nevt_1")))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().tryInsertDedup(new DedupClaim(tenant, "dedup\nevt_1", "sch_2", T0))))
                .isTrue();
    }

    @Test
    void aDedupClaimIsNeverTakenOverAsARequestInProgress() {
        store.useTransaction(
                tx -> tx.idempotency().tryInsertDedup(new DedupClaim(tenant, "dedup\nevt_1", "sch_1", T0)));
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency()
                        .takeOverExpired(
                                tenant,
                                "dedup\nevt_1",
                                "fp",
                                T0.plus(Duration.ofHours(1)),
                                T0.plus(Duration.ofHours(2)))))
                .isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().findDedup(tenant, "dedup\nevt_1")))
                .map(DedupClaim::scheduleId)
                .contains("sch_1");
    }

    @Test
    void pruneDeletesDedupClaimsPastTheCutoffLikeRecords() {
        store.useTransaction(tx -> tx.idempotency().tryInsertDedup(new DedupClaim(tenant, "dedup\nold", "sch_1", T0)));
        clock.advance(Duration.ofHours(25));
        store.useTransaction(
                tx -> tx.idempotency().tryInsertDedup(new DedupClaim(tenant, "dedup\nnew", "sch_2", clock.instant())));
        assertThat(store.inTransaction((StoreTx tx) ->
                        tx.idempotency().pruneCreatedBefore(clock.instant().minus(Duration.ofHours(24)), 10)))
                .isEqualTo(1);
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().findDedup(tenant, "dedup\nold")))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.idempotency().findDedup(tenant, "dedup\nnew")))
                .isPresent();
    }
}
