package dev.idem.core.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * Node liveness: one record per node id, renewed by its node every few seconds on the store's clock (the
 * database's clock on PostgreSQL). Each start of a node id, and each rejoin after it was declared dead, is a new
 * incarnation with a higher {@code epoch}, and claims are leased to {@link Node#owner()} ({@code <nodeId>#<epoch>}):
 * so the claims of a dead incarnation are told apart from those of a live one with the same node id, and an outcome
 * recorded late by an incarnation that lost its claims is dropped by {@link DeliveryQueue#complete}.
 *
 * <p>The store holds the mechanism; which node counts as dead is the caller's decision (a predicate on the record and
 * the store's current time). Declaring a node dead and returning its claims to the queue happen in one transaction,
 * compare-and-set on the record as it was read, so a node that renews meanwhile keeps its claims. Calls run on a
 * connection of their own, so a busy pool cannot delay a renewal.
 */
public interface NodeRegistry {
    /** Where an incarnation runs, recorded with it (for the error a duplicate node id gets, and for telling a dead process). */
    record NodeProcess(String host, String machine, long pid, Instant processStart) {
        public NodeProcess {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(machine, "machine");
        }
    }

    enum Status {
        LIVE,
        DEAD,
        STOPPED;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public static Status parse(String s) {
            return valueOf(s.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /**
     * A node id's record: its current (or last) incarnation.
     *
     * @param renewedAt the store time of its last renewal (of its stop, once stopped)
     * @param endedAt when it was declared dead or stopped; null while live
     * @param takenOverBy the node id that declared it dead; null otherwise
     */
    record Node(
            String nodeId,
            long epoch,
            Status status,
            Instant startedAt,
            Instant renewedAt,
            Instant endedAt,
            String takenOverBy,
            NodeProcess process) {
        public Node {
            Objects.requireNonNull(nodeId, "nodeId");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(process, "process");
        }

        /** The lease owner of this incarnation's claims. */
        public String owner() {
            return owner(nodeId, epoch);
        }

        public static String owner(String nodeId, long epoch) {
            return nodeId + "#" + epoch;
        }

        /** How long before {@code now} it last renewed. */
        public Duration silentFor(Instant now) {
            return Duration.between(renewedAt, now);
        }
    }

    /** What {@link #join} did. */
    sealed interface Join permits Joined, Occupied {}

    /**
     * The caller is now {@code node}, a new incarnation.
     *
     * @param previous the record it replaced (a stopped, dead or dead-declared incarnation), if any
     * @param claimsTakenOver claims of {@code previous} returned to the queue (when it was live and declared dead here)
     */
    record Joined(Node node, Optional<Node> previous, int claimsTakenOver) implements Join {}

    /** A live incarnation holds the node id and was not declared dead; nothing changed. */
    record Occupied(Node holder, Instant now) implements Join {}

    /**
     * Registers a new incarnation of {@code nodeId}: creates the record, or replaces a stopped or dead one, or a
     * live one for which {@code holderIsDead(record, storeNow)} is true (its claims return to the queue in the same
     * transaction). A live record not declared dead is left alone: {@link Occupied}.
     */
    Join join(String nodeId, NodeProcess process, BiPredicate<Node, Instant> holderIsDead);

    /**
     * Renews the liveness of incarnation {@code epoch} of {@code nodeId} at the store's now.
     *
     * @return false when that incarnation is no longer live (declared dead, or the id was taken): the caller must start
     *     none of its claims, and {@link #find} says what happened
     */
    boolean renew(String nodeId, long epoch);

    /**
     * As the live incarnation {@code epoch} of {@code nodeId}, declares dead every other live node for which
     * {@code isDead(record, storeNow)} is true and returns its claims to the queue (status retrying, due now, same
     * delivery id and key; the next claim is the next attempt), one transaction for all.
     *
     * @return what it did, or empty when the caller is not that live incarnation (it then declares no one dead)
     */
    Optional<Scan> takeOver(String nodeId, long epoch, BiPredicate<Node, Instant> isDead);

    /** One dead node whose claims were returned to the queue. */
    record Takeover(Node dead, int claims, Duration silentFor) {}

    /**
     * @param now the store's time during the scan
     * @param takeovers the nodes declared dead by this scan
     * @param stillLive the other nodes found live
     */
    record Scan(Instant now, List<Takeover> takeovers, List<Node> stillLive) {}

    /** A graceful stop: the incarnation is {@code stopped} (its claims are the caller's to release first). */
    void leave(String nodeId, long epoch);

    Optional<Node> find(String nodeId);

    /** Every record, live or not, by node id. */
    List<Node> list();

    /** Deletes records of stopped and dead incarnations that ended before {@code before}; returns how many. */
    int pruneEnded(Instant before);
}
