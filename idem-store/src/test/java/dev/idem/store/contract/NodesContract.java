package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.store.DeliveryQueue.Claim;
import dev.idem.core.store.DeliveryQueue.Outcome;
import dev.idem.core.store.NodeRegistry;
import dev.idem.core.store.NodeRegistry.Join;
import dev.idem.core.store.NodeRegistry.Joined;
import dev.idem.core.store.NodeRegistry.Node;
import dev.idem.core.store.NodeRegistry.NodeProcess;
import dev.idem.core.store.NodeRegistry.Occupied;
import dev.idem.core.store.NodeRegistry.Scan;
import dev.idem.core.store.NodeRegistry.Status;
import dev.idem.core.store.StoreTx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/** The node liveness records, on every dialect. */
abstract class NodesContract extends StoreTestBase {
    static final NodeProcess PROCESS =
            new NodeProcess("host-1", "host-1/boot/pid:[1]", 4242, Instant.parse("2029-12-31T23:00:00Z"));
    static final BiPredicate<Node, Instant> NEVER = (n, now) -> false;
    static final Duration LEASE = Duration.ofSeconds(90);

    NodeRegistry nodes() {
        return store.nodes();
    }

    Node joined(String nodeId) {
        Join j = nodes().join(nodeId, PROCESS, NEVER);
        assertThat(j).isInstanceOf(Joined.class);
        return ((Joined) j).node();
    }

    /** Claims {@code n} due deliveries as {@code owner}. */
    List<Claim> claimAs(String owner, int n) {
        dueDeliveries(n);
        List<Claim> claims = store.queue().claimDue(owner, LEASE, n);
        assertThat(claims).hasSize(n);
        return claims;
    }

    Delivery find(Claim c) {
        return store.inTransaction((StoreTx tx) ->
                        tx.deliveries().find(c.delivery().tenant(), c.delivery().id()))
                .orElseThrow();
    }

    @Test
    void aNewNodeIdJoinsAsIncarnationOneRecordingItsProcessAndTheStoreTime() {
        Node a = joined("node-a");
        assertThat(a.epoch()).isEqualTo(1);
        assertThat(a.owner()).isEqualTo("node-a#1");
        assertThat(a.status()).isEqualTo(Status.LIVE);
        assertThat(a.startedAt()).isEqualTo(T0);
        assertThat(a.renewedAt()).isEqualTo(T0);
        assertThat(a.endedAt()).isNull();
        assertThat(a.process()).isEqualTo(PROCESS);
        assertThat(nodes().list()).containsExactly(a);
    }

    @Test
    void aLiveRecordIsLeftAloneUnlessTheJoinerDeclaresItsHolderDeadAndThenItsClaimsGoBackToTheQueue() {
        Node first = joined("node-a");
        List<Claim> held = claimAs(first.owner(), 3);
        clock.advance(Duration.ofSeconds(4));

        Join refused = nodes().join("node-a", PROCESS, (holder, now) -> {
            assertThat(holder).isEqualTo(first);
            assertThat(holder.silentFor(now)).isEqualTo(Duration.ofSeconds(4));
            return false;
        });
        assertThat(refused)
                .isInstanceOfSatisfying(
                        Occupied.class, o -> assertThat(o.holder()).isEqualTo(first));
        assertThat(held).allSatisfy(c -> assertThat(find(c).status()).isEqualTo(DeliveryStatus.DELIVERING));

        Join taken = nodes().join("node-a", PROCESS, (holder, now) -> true);
        assertThat(taken).isInstanceOfSatisfying(Joined.class, j -> {
            assertThat(j.node().epoch()).isEqualTo(2);
            assertThat(j.node().owner()).isEqualTo("node-a#2");
            assertThat(j.node().renewedAt()).isEqualTo(T0.plusSeconds(4));
            assertThat(j.previous()).contains(first);
            assertThat(j.claimsTakenOver()).isEqualTo(3);
        });
        for (Claim c : held) {
            Delivery d = find(c);
            assertThat(d.status()).isEqualTo(DeliveryStatus.RETRYING);
            assertThat(d.leaseOwner()).isNull();
            assertThat(d.nextAttemptAt()).isEqualTo(clock.instant());
        }
        // the same delivery goes out again as the next attempt
        assertThat(store.queue().claimDue("node-a#2", LEASE, 10))
                .hasSize(3)
                .allSatisfy(c -> assertThat(c.delivery().attemptCount()).isEqualTo(2));
    }

    @Test
    void aStoppedRecordIsTakenWithoutAskingAndTheEpochCountsOn() {
        Node first = joined("node-a");
        clock.advance(Duration.ofSeconds(1));
        nodes().leave("node-a", first.epoch());
        assertThat(nodes().find("node-a")).hasValueSatisfying(n -> {
            assertThat(n.status()).isEqualTo(Status.STOPPED);
            assertThat(n.endedAt()).isEqualTo(T0.plusSeconds(1));
        });
        Join again = nodes().join("node-a", PROCESS, (holder, now) -> fail("a stopped record is not a live holder"));
        assertThat(again).isInstanceOfSatisfying(Joined.class, j -> {
            assertThat(j.node().epoch()).isEqualTo(2);
            assertThat(j.node().endedAt()).isNull();
            assertThat(j.previous())
                    .hasValueSatisfying(p -> assertThat(p.status()).isEqualTo(Status.STOPPED));
            assertThat(j.claimsTakenOver()).isZero();
        });
    }

    @Test
    void aRenewalMovesTheRecordToTheStoreTimeOnlyForTheLiveIncarnation() {
        Node a = joined("node-a");
        clock.advance(Duration.ofSeconds(2));
        assertThat(nodes().renew("node-a", a.epoch())).isTrue();
        assertThat(nodes().find("node-a").orElseThrow().renewedAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(nodes().renew("node-a", a.epoch() + 1)).isFalse();
        assertThat(nodes().renew("node-b", 1)).isFalse();
        nodes().leave("node-a", a.epoch());
        assertThat(nodes().renew("node-a", a.epoch())).isFalse();
    }

    @Test
    void aTakeoverDeclaresDeadExactlyWhomThePredicateNamesAndReturnsTheirClaimsInTheSameTransaction() {
        Node a = joined("node-a");
        Node b = joined("node-b");
        Node c = joined("node-c");
        List<Claim> ofB = claimAs(b.owner(), 3);
        List<Claim> ofC = claimAs(c.owner(), 2);
        clock.advance(Duration.ofSeconds(11));
        nodes().renew("node-c", c.epoch());
        clock.advance(Duration.ofSeconds(1));

        Scan scan = nodes().takeOver(
                        "node-a", a.epoch(), (n, now) -> n.silentFor(now).compareTo(Duration.ofSeconds(10)) > 0)
                .orElseThrow();
        assertThat(scan.now()).isEqualTo(T0.plusSeconds(12));
        assertThat(scan.takeovers()).singleElement().satisfies(t -> {
            assertThat(t.dead()).isEqualTo(b);
            assertThat(t.claims()).isEqualTo(3);
            assertThat(t.silentFor()).isEqualTo(Duration.ofSeconds(12));
        });
        assertThat(scan.stillLive()).extracting(Node::nodeId).containsExactly("node-c");
        assertThat(nodes().find("node-b")).hasValueSatisfying(n -> {
            assertThat(n.status()).isEqualTo(Status.DEAD);
            assertThat(n.takenOverBy()).isEqualTo("node-a");
            assertThat(n.endedAt()).isEqualTo(T0.plusSeconds(12));
        });
        assertThat(ofB).allSatisfy(cl -> {
            assertThat(find(cl).status()).isEqualTo(DeliveryStatus.RETRYING);
            assertThat(find(cl).nextAttemptAt()).isEqualTo(T0.plusSeconds(12));
        });
        assertThat(ofC).allSatisfy(cl -> assertThat(find(cl).leaseOwner()).isEqualTo("node-c#1"));
        // the scanner itself is never a candidate
        assertThat(nodes().takeOver("node-a", a.epoch(), (n, now) -> {
                    assertThat(n.nodeId()).isNotEqualTo("node-a");
                    return false;
                }))
                .hasValueSatisfying(s -> assertThat(s.takeovers()).isEmpty());
    }

    @Test
    void anIncarnationDeclaredDeadCanNeitherRenewNorDeclareOthersDeadAndItsLateOutcomesAreStale() {
        Node a = joined("node-a");
        Node b = joined("node-b");
        Claim claim = claimAs(b.owner(), 1).get(0);
        nodes().takeOver("node-a", a.epoch(), (n, now) -> true);

        assertThat(nodes().renew("node-b", b.epoch())).isFalse();
        assertThat(nodes().takeOver("node-b", b.epoch(), (n, now) -> fail("a dead incarnation declares no one dead")))
                .isEmpty();
        Delivery d = claim.delivery();
        Attempt late = new Attempt(ids.next("att"), d.id(), d.attemptCount(), clock.instant(), 10, 200, null, null);
        assertThat(store.queue()
                        .complete(b.owner(), List.of(new Outcome(d.id(), late, DeliveryStatus.SUCCEEDED, null, null)))
                        .applied())
                .isEmpty();
        assertThat(find(claim).status()).isEqualTo(DeliveryStatus.RETRYING);
        assertThat(store.inTransaction((StoreTx tx) -> tx.deliveries().attempts(d.id())))
                .singleElement()
                .satisfies(x -> assertThat(x.succeeded()).isFalse());

        // it comes back as a new incarnation: the dead record is taken without asking
        assertThat(nodes().join("node-b", PROCESS, (n, now) -> fail("a dead record is not a live holder")))
                .isInstanceOfSatisfying(
                        Joined.class, j -> assertThat(j.node().owner()).isEqualTo("node-b#2"));
    }

    @Test
    void aRejoinReturnsClaimsItsDeadIncarnationCommittedAfterItWasDeclaredDead() {
        Node a = joined("node-a");
        Node b = joined("node-b");
        nodes().takeOver("node-a", a.epoch(), (n, now) -> true);
        // a claim the dead incarnation sent before it knew: nothing else would return it before its lease
        List<Claim> late = claimAs(b.owner(), 2);
        assertThat(nodes().join("node-b", PROCESS, NEVER))
                .isInstanceOfSatisfying(
                        Joined.class, j -> assertThat(j.claimsTakenOver()).isEqualTo(2));
        assertThat(late).allSatisfy(c -> assertThat(find(c).status()).isEqualTo(DeliveryStatus.RETRYING));
    }

    @Test
    void recordsThatEndedBeforeTheCutoffArePrunedAndLiveOnesNever() {
        Node a = joined("node-a");
        joined("node-b");
        joined("node-c");
        nodes().leave("node-a", a.epoch());
        clock.advance(Duration.ofHours(2));
        nodes().takeOver("node-c", 1, (n, now) -> n.nodeId().equals("node-b"));
        assertThat(nodes().pruneEnded(T0.plusSeconds(60))).isEqualTo(1);
        assertThat(nodes().list()).extracting(Node::nodeId).containsExactly("node-b", "node-c");
        assertThat(nodes().pruneEnded(T0.plus(Duration.ofDays(1)))).isEqualTo(1);
        assertThat(nodes().list())
                .extracting(Node::nodeId, Node::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("node-c", Status.LIVE));
    }
}
