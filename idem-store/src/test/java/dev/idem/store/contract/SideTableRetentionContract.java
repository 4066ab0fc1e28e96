package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.FlowControl;
import dev.idem.core.Schedule;
import dev.idem.core.ScheduleStatus;
import dev.idem.core.portal.AuditEntry;
import dev.idem.core.portal.Capability;
import dev.idem.core.portal.PortalAccess;
import dev.idem.core.portal.PortalSession;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the pruner deletes beside history: portal sessions once expired, portal links once expired and without a
 * session, audit entries past their cutoff, flow-control counters of past seconds; each oldest first, in batches, and
 * nothing younger than its cutoff.
 */
abstract class SideTableRetentionContract extends StoreTestBase {
    static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void portalSessionsArePrunedOnceExpiredOldestFirstInBatches() {
        PortalAccess link = link(Duration.ofDays(7));
        PortalSession first = session(link);
        clock.advance(Duration.ofMinutes(10));
        PortalSession second = session(link);
        clock.advance(Duration.ofMinutes(10));
        PortalSession third = session(link);

        assertThat(count(tx -> tx.portal().pruneSessions(clock.instant(), 10)))
                .as("none expired yet")
                .isZero();
        clock.advance(PortalSession.LIFETIME);
        assertThat(count(tx -> tx.portal().pruneSessions(clock.instant(), 2))).isEqualTo(2);
        assertThat(findSession(first)).isEmpty();
        assertThat(findSession(second)).isEmpty();
        assertThat(findSession(third))
                .as("expired last, left for the next batch")
                .isPresent();
        clock.advance(Duration.ofMinutes(1));
        assertThat(count(tx -> tx.portal().pruneSessions(clock.instant(), 2))).isEqualTo(1);
        assertThat(findSession(third)).isEmpty();
    }

    @Test
    void aPortalLinkIsPrunedOnlyOnceExpiredAndWithoutASessionLeft() {
        PortalAccess expiring = link(Duration.ofHours(1));
        PortalAccess lasting = link(Duration.ofDays(7));
        PortalSession open = session(expiring);
        clock.advance(Duration.ofHours(2));

        assertThat(count(tx -> tx.portal().pruneLinks(clock.instant(), 10)))
                .as("its session is still there")
                .isZero();
        assertThat(count(tx -> tx.portal().pruneSessions(clock.instant(), 10))).isEqualTo(1);
        assertThat(findSession(open)).isEmpty();
        assertThat(count(tx -> tx.portal().pruneLinks(clock.instant(), 10))).isEqualTo(1);
        assertThat(findLink(expiring)).isEmpty();
        assertThat(findLink(lasting)).as("not expired").isPresent();
    }

    @Test
    void aRevokedPortalLinkGoesWhenItWouldHaveExpired() {
        PortalAccess link = link(Duration.ofDays(1));
        count(tx -> tx.portal().revoke(tenant, link.applicationId(), null, clock.instant()));
        clock.advance(Duration.ofHours(23));
        assertThat(count(tx -> tx.portal().pruneLinks(clock.instant(), 10))).isZero();
        clock.advance(Duration.ofHours(2));
        assertThat(count(tx -> tx.portal().pruneLinks(clock.instant(), 10))).isEqualTo(1);
        assertThat(findLink(link)).isEmpty();
    }

    @Test
    void auditEntriesArePrunedPastTheCutoffOldestFirstAndYoungerOnesStay() {
        audit();
        clock.advance(Duration.ofDays(1));
        AuditEntry second = audit();
        clock.advance(Duration.ofDays(1));
        AuditEntry young = audit();

        Instant cutoff = clock.instant().minusSeconds(1);
        assertThat(count(tx -> tx.portal().pruneAudit(cutoff, 1))).isEqualTo(1);
        assertThat(auditIds()).containsExactly(young.id(), second.id());
        assertThat(count(tx -> tx.portal().pruneAudit(cutoff, 10))).isEqualTo(1);
        assertThat(auditIds()).containsExactly(young.id());
    }

    @Test
    void aFlowControlCounterIsPrunedOnceItsSecondIsPastAndTheCurrentOneStillLimits() {
        FlowControl rated = new FlowControl("rated", null, 2);
        for (int i = 0; i < 3; i++) delivery(scheduleTo("https://rated.example.com/", rated), clock.instant());
        assertThat(store.queue().claimDue("n", LEASE, 10)).hasSize(2);

        assertThat(store.queue().pruneFlowUsage(clock.instant(), 10))
                .as("the counter of the current second")
                .isZero();
        assertThat(store.queue().claimDue("n", LEASE, 10))
                .as("the rate still holds")
                .isEmpty();

        clock.advance(Duration.ofHours(2));
        assertThat(store.queue().pruneFlowUsage(clock.instant().minus(Duration.ofHours(1)), 10))
                .isEqualTo(1);
        assertThat(store.queue().pruneFlowUsage(clock.instant(), 10)).isZero();
        assertThat(store.queue().claimDue("n", LEASE, 10))
                .as("a new second counts from nothing")
                .hasSize(1);
    }

    int count(java.util.function.ToIntFunction<StoreTx> work) {
        return store.inTransaction(tx -> work.applyAsInt(tx));
    }

    <T> T portal(java.util.function.Function<StoreTx, T> work) {
        return store.inTransaction(work);
    }

    PortalAccess link(Duration expiresIn) {
        Instant now = clock.instant();
        PortalAccess a = new PortalAccess(
                ids.next("pac"),
                tenant,
                "app_1",
                ids.next("hash"),
                Set.of(Capability.VIEW),
                null,
                now,
                now.plus(expiresIn),
                null);
        store.useTransaction(tx -> tx.portal().insertAccess(a));
        return a;
    }

    PortalSession session(PortalAccess link) {
        Instant now = clock.instant();
        PortalSession s =
                new PortalSession(ids.next("pss"), link.id(), ids.next("hash"), now, PortalSession.endOf(link, now));
        store.useTransaction(tx -> tx.portal().insertSession(s));
        return s;
    }

    AuditEntry audit() {
        AuditEntry e = new AuditEntry(
                ids.next("aud"), tenant, "app_1", "pac_1", null, "endpoint.update", "ep_1", "url", clock.instant());
        store.useTransaction(tx -> tx.portal().insertAudit(e));
        return e;
    }

    java.util.List<String> auditIds() {
        return portal(tx -> tx.portal().audit(tenant, null, 10, null)).data().stream()
                .map(AuditEntry::id)
                .toList();
    }

    Optional<PortalSession> findSession(PortalSession s) {
        return portal(tx -> tx.portal().findSessionByHash(s.hash()));
    }

    Optional<PortalAccess> findLink(PortalAccess a) {
        return portal(tx -> tx.portal().findAccess(a.id()));
    }

    Schedule scheduleTo(String endpoint, FlowControl flow) {
        Instant now = clock.instant();
        var d = definition(now).withEndpoint(endpoint).withFlowControl(flow);
        Schedule s = new Schedule(ids.next("sch"), tenant, ScheduleStatus.ACTIVE, d, now, 0, null, 0, now, now);
        store.useTransaction(tx -> tx.schedules().insert(s));
        return s;
    }
}
