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

    /**
     * As {@link #claimDue(String, Duration, int)}, also taking deliveries due within {@code lookahead} from
     * now: a dispatcher under a steady trickle claims a few milliseconds' worth in one transaction and holds
     * each until its due instant, instead of one claim per due millisecond. The caller must not send a
     * delivery before its {@code nextAttemptAt}.
     */
    List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead);

    /** A claimed delivery (attemptCount already counts this attempt) and its schedule. */
    record Claim(Delivery delivery, Schedule schedule) {
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
    record Outcome(String deliveryId, Attempt attempt, DeliveryStatus newStatus, Instant nextAttemptAt, String lastError) {
        public Outcome {
            Objects.requireNonNull(deliveryId, "deliveryId");
            Objects.requireNonNull(attempt, "attempt");
            if (newStatus != DeliveryStatus.SUCCEEDED && newStatus != DeliveryStatus.RETRYING && newStatus != DeliveryStatus.DEAD)
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
    Optional<Instant> nextDueAt();

    /** The store's current time, as claims see it. */
    Instant now();

    /** Deletes up to {@code limit} finished deliveries (and their attempts) last updated before {@code before}. */
    int pruneFinished(Instant before, int limit);

    /** Pending deliveries (scheduled, retrying, delivering): the queue depth metric. */
    long depth();

    /**
     * Signals {@link Store#onDeliveriesDue} subscribers on every node now, outside any transaction
     * (for example after a replay or a resume made deliveries claimable).
     */
    void notifyDue();
}
