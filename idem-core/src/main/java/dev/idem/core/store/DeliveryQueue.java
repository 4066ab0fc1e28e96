package dev.idem.core.store;

import dev.idem.core.Attempt;
import dev.idem.core.Delivery;
import dev.idem.core.DeliveryStatus;
import dev.idem.core.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The dispatcher's side of the store: claim due deliveries under a lease, record outcomes, return
 * expired leases. Each call is its own short transaction. "Now" is the store's clock (the database's
 * clock on PostgreSQL in production, so node clock skew can neither fire early nor steal a lease).
 */
public interface DeliveryQueue {
    /**
     * Claims up to {@code limit} deliveries that are pending ({@code SCHEDULED} or {@code RETRYING}),
     * due ({@code nextAttemptAt <= now}) and whose schedule is neither paused nor deleted; sets them
     * {@code DELIVERING}, owned by {@code owner} until now + {@code lease}, and increments their attempt
     * count. Concurrent claimers never get the same delivery.
     */
    default List<Claim> claimDue(String owner, Duration lease, int limit) {
        return claimDue(owner, lease, limit, Duration.ZERO);
    }

    /** As {@link #claimDue(String, Duration, int, Duration, Fairness)} with no per-destination limit. */
    default List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead) {
        return claimDue(owner, lease, limit, lookahead, Fairness.NONE);
    }

    /**
     * As {@link #claimDue(String, Duration, int)}, also taking deliveries never attempted yet ({@code scheduled})
     * due within {@code lookahead} from now: a dispatcher claims them ahead and holds each until its due instant, so
     * a slow claim does not make them late and a steady trickle costs one claim per many rows. Retries are taken
     * when due. The caller must not send a delivery before its {@code nextAttemptAt}.
     *
     * <p>Destinations (endpoint URLs without their query, {@link dev.idem.core.Destination}) interleave: the claim takes the earliest due row of each destination
     * first, then the second of each, and so on, and at most {@code fairness.freeFor(destination)} rows of each; a
     * destination with no free slot gets none, so its backlog stays in the table. The claim reads bounded windows of
     * due rows (the earliest and the latest), so another destination's rows due in the middle of a full destination's
     * backlog are left to {@link #claimDuePassingOver}. Deliveries whose schedule
     * has {@code flow_control} are claimed only while their key's attempts in flight (deliveries {@code DELIVERING},
     * on any node) stay within its {@code parallelism}, and attempts claimed in the current second of the store's
     * clock within its {@code rate}; claims of flow-controlled deliveries are serialised across nodes.
     */
    List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness);

    /**
     * As {@link #claimDue(String, Duration, int, Duration, Fairness)}, but reading past the due rows of destinations
     * with no free slot to find other destinations' rows among them. {@code claimDue} reads a bounded window of the
     * earliest and of the latest due rows, so rows of another destination that fell due in the middle of a full
     * destination's backlog (at the same instant as a hanging destination's burst, say) are claimed only here. Nothing
     * indexes a row's destination, so this reads every row it passes over with its schedule: seconds behind hundreds of
     * thousands of rows. Callers run it now and then, off their main claim path, while some destination is full.
     */
    List<Claim> claimDuePassingOver(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness);

    /**
     * How many more deliveries of each destination a claim may take.
     *
     * @param free destination key ({@link dev.idem.core.Destination#of}) → free slots; 0 = none may be claimed
     * @param otherwise the free slots of a destination absent from {@code free}
     */
    record Fairness(java.util.Map<String, Integer> free, int otherwise) {
        /** No limit per destination. */
        public static final Fairness NONE = new Fairness(java.util.Map.of(), Integer.MAX_VALUE);

        public Fairness {
            free = java.util.Map.copyOf(free);
            if (otherwise < 0) throw new IllegalArgumentException("otherwise must not be negative, got " + otherwise);
        }

        public int freeFor(String destination) {
            return free.getOrDefault(destination, otherwise);
        }

        /** Whether some destination has no free slot (its due rows are not to be claimed now). */
        public boolean anyFull() {
            for (int f : free.values()) if (f <= 0) return true;
            return false;
        }
    }

    /**
     * Gives back claims that were never attempted: each returns to the queue as it was before its claim (pending,
     * its attempt count one less), so a delivery that waited for a congested destination loses no attempt of its
     * retry policy. Applied only while {@code owner} still holds that very claim.
     *
     * @return how many were given back
     */
    int unclaim(String owner, List<Claim> claims);

    /**
     * Checks claims held ahead of their instant just before they start: a dispatcher that claimed a delivery within
     * the look-ahead asks again shortly before sending it, so a pause, a delete or a change of its schedule that landed
     * meanwhile still stops it. Of {@code claims} (all claimed as {@code owner}), returns those that may start: still
     * leased to {@code owner} in that very claim, their schedule active (or completed) and its definition unchanged.
     * The others are settled here: a paused schedule's or a changed schedule's delivery goes back to the queue
     * unattempted (as {@link #unclaim}; a changed one is then claimed again with its new definition), a deleted
     * schedule's is cancelled unattempted, and one no longer held as that claim is left alone. "Changed" means a write
     * of a different definition ({@link ScheduleRepository#update} with a definition that differs from the stored one),
     * read from {@link Claim#definitionRevision}; the rest of the schedule (its cursor, its failure count, its becoming
     * completed, {@code updatedAt}) moves all the time and is not a change.
     */
    List<Claim> confirmHeld(String owner, List<Claim> claims);

    /**
     * Fills the destination and flow-control columns of up to {@code limit} schedules written without them (by a
     * writer that predates them); returns how many. Until then their deliveries are claimed as a destination of
     * their own and without flow control.
     */
    int fillRouting(int limit);

    /**
     * A claimed delivery (attemptCount already counts this attempt) and its schedule.
     *
     * @param definitionRevision the store's revision of the schedule's definition as this claim read it, opaque outside
     *     the store: {@link #confirmHeld} compares it with the stored one rather than the whole definition, so it must
     *     be passed back as the claim returned it
     */
    record Claim(Delivery delivery, Schedule schedule, long definitionRevision) {
        public Claim {
            Objects.requireNonNull(delivery, "delivery");
            Objects.requireNonNull(schedule, "schedule");
        }
    }

    /**
     * Records outcomes in one transaction; each is applied only while {@code owner} still holds the lease
     * of that very attempt, that is while the delivery is {@code DELIVERING}, leased to {@code owner}, and
     * its attempt count equals {@code outcome.attempt().number()} (the claim's {@code attemptCount}). So a
     * reclaimed delivery's late outcome is dropped, even when the same owner reclaimed it; its attempt row
     * is still kept (the request was sent), its error saying it is stale, so it never reads as a success. The owner is
     * an incarnation ({@link NodeRegistry.Node#owner()}): a node declared dead and back as a new incarnation cannot
     * complete a claim of its dead one. Applies the
     * schedule side in the same transaction: success resets {@code consecutiveFailures}; a failure adds
     * one and, when the schedule's {@code autoPauseAfter > 0} is reached, pauses it with reason
     * {@code consecutive_failures}.
     *
     * @return what was applied: the deliveries, those that went dead, the schedules that paused themselves
     */
    Completed complete(String owner, List<Outcome> outcomes);

    /**
     * What one {@link #complete} call applied: the facts an operator (a log line, an alert) hears about.
     *
     * @param applied ids of the deliveries whose outcome was applied, in the outcomes' order
     * @param dead the applied outcomes that made their delivery {@code DEAD}
     * @param autoPaused the schedules this call paused because they reached {@code auto_pause_after}
     */
    record Completed(List<String> applied, List<Dead> dead, List<AutoPaused> autoPaused) {
        /** Nothing applied. */
        public static final Completed NONE = new Completed(List.of(), List.of(), List.of());

        public Completed {
            applied = List.copyOf(applied);
            dead = List.copyOf(dead);
            autoPaused = List.copyOf(autoPaused);
        }
    }

    /** A delivery that went dead: its last attempt's number and error. */
    record Dead(String deliveryId, String scheduleId, int attempts, String lastError) {}

    /** A schedule that paused itself after {@code consecutiveFailures} failed attempts in a row. */
    record AutoPaused(String scheduleId, int consecutiveFailures) {}

    /**
     * What happened to one attempt.
     *
     * @param newStatus {@code SUCCEEDED}, {@code RETRYING} or {@code DEAD}
     * @param nextAttemptAt when {@code RETRYING}, when it may be claimed again; else null
     */
    record Outcome(
            String deliveryId, Attempt attempt, DeliveryStatus newStatus, Instant nextAttemptAt, String lastError) {
        public Outcome {
            Objects.requireNonNull(deliveryId, "deliveryId");
            Objects.requireNonNull(attempt, "attempt");
            if (newStatus != DeliveryStatus.SUCCEEDED
                    && newStatus != DeliveryStatus.RETRYING
                    && newStatus != DeliveryStatus.DEAD)
                throw new IllegalArgumentException("an outcome ends in succeeded, retrying or dead, not " + newStatus);
            if ((newStatus == DeliveryStatus.RETRYING) != (nextAttemptAt != null))
                throw new IllegalArgumentException("nextAttemptAt is set exactly when retrying");
        }
    }

    /** Returns deliveries whose lease expired to {@code RETRYING}, due now; returns how many. */
    int reapExpired();

    /** Returns every delivery {@code owner} holds to {@code RETRYING}, due now (graceful shutdown). */
    int release(String owner);

    /**
     * Returns every delivery {@code owner} holds, except those in {@code keep}, to {@code RETRYING}, due now. For
     * a node that lost track of a claim: a claim whose commit went through while the connection broke before the
     * answer came back leaves rows leased to the node that it never sends.
     */
    int releaseExcept(String owner, java.util.Collection<String> keep);

    /** The earliest {@code nextAttemptAt} among claimable deliveries, for the dispatcher's timer. */
    default Optional<Instant> nextDueAt() {
        return nextDueAt(Fairness.NONE);
    }

    /** As {@link #nextDueAt()}, leaving out destinations that {@code fairness} gives no free slot. */
    Optional<Instant> nextDueAt(Fairness fairness);

    /** The store's current time, as claims see it. */
    Instant now();

    /** Deletes up to {@code limit} finished deliveries (and their attempts) last updated before {@code before}. */
    int pruneFinished(Instant before, int limit);

    /**
     * Deletes up to {@code limit} schedules that are over ({@code completed} or {@code deleted}), last changed before
     * {@code before} and with no delivery left (their deliveries already pruned by {@link #pruneFinished}); returns how
     * many. An active or paused schedule is never deleted, whatever its age: a recurring schedule stays while it lives.
     */
    int pruneSettledSchedules(Instant before, int limit);

    /**
     * Deletes up to {@code limit} messages created before {@code before} with no delivery left (each delivery of a
     * message is pruned by {@link #pruneFinished} first); returns how many.
     */
    int pruneMessages(Instant before, int limit);

    /**
     * Deletes up to {@code limit} of the per-second counts of finished deliveries behind the dashboard's counters
     * ({@link StatsRepository}) of seconds before {@code before}; returns how many.
     */
    int pruneFinishCounts(Instant before, int limit);

    /**
     * Deletes up to {@code limit} flow-control counters ({@code flow_control.rate}) last used in a second before
     * {@code before}; returns how many. A counter counts only within its second, so a stale one means nothing.
     */
    int pruneFlowUsage(Instant before, int limit);

    /**
     * Returns up to {@code pages} pages of the free space deletes left in the database file to the file system, in
     * one short transaction; returns how many (0 where the database reuses its space itself: PostgreSQL). Call it
     * again while it returns {@code pages}.
     */
    long reclaimSpace(int pages);

    /** Pending deliveries (scheduled, retrying, delivering): the queue depth metric. */
    long depth();

    /**
     * Signals {@link Store#onDeliveriesDue} subscribers on every node now, outside any transaction
     * (for example after a replay or a resume made deliveries claimable).
     */
    void notifyDue();
}
