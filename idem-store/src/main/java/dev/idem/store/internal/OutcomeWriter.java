package dev.idem.store.internal;

import dev.idem.core.IdGenerator;
import dev.idem.core.outcome.OutcomeBatch;
import dev.idem.core.store.DeliveryQueue.Completed;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.List;
import java.util.Map;

/**
 * Applies one {@link dev.idem.core.store.DeliveryQueue#complete} in the caller's transaction: the statements are
 * {@link Completion}'s, what they write is {@link OutcomeBatch}'s to decide, the alerts {@link AlertWriter}'s to write.
 */
final class OutcomeWriter {
    private final Dialect dialect;
    private final DueSignal signal;
    private final Completion completion;
    private final AlertWriter alerts;
    private final EndpointHealthWriter health;

    OutcomeWriter(Dialect dialect, DueSignal signal, IdGenerator ids) {
        this.dialect = dialect;
        this.signal = signal;
        this.completion = dialect.completion();
        this.alerts = new AlertWriter(ids);
        this.health = new EndpointHealthWriter(alerts, dialect);
    }

    /**
     * @param completed what was applied
     * @param alerted whether an alert was written (the dispatchers are signalled when the transaction commits)
     */
    record Written(Completed completed, boolean alerted) {}

    Written write(Sql sql, String owner, List<Outcome> outcomes, long now) {
        Map<String, String> endpointOf = new java.util.HashMap<>();
        List<Outcome> toApply = OutcomeBatch.toApply(outcomes);
        Map<String, String> scheduleOfApplied = completion.updateDeliveries(sql, owner, toApply, now, endpointOf);
        OutcomeBatch batch = OutcomeBatch.applied(outcomes, scheduleOfApplied);
        completion.insertAttempts(sql, batch.attempts());
        if (batch.nothingApplied()) return new Written(Completed.NONE, false);
        OutcomeBatch.Effects effects =
                batch.effects(completion.lockSchedules(sql, batch.schedules(), batch.withFailures(), batch.finalIn()));
        if (!effects.counters().isEmpty()) completion.updateCounters(sql, effects.counters(), now);
        // a schedule whose last delivery just became final is completed, in the same transaction
        Settlement.ofLockedSchedules(sql, effects.mayComplete(), now);
        // the alerts of what this batch made dead or paused, as durable as the outcomes (see AlertWriter)
        JdbcTx tx = new JdbcTx(sql, dialect, signal);
        boolean alerted = alerts.raise(tx, sql, outcomes, effects.completed(), now);
        // the endpoints' health, and the disabling of one failing for its disable_after (see EndpointHealthWriter)
        alerted |= health.apply(tx, sql, toApply, endpointOf, now);
        // last: the dashboard's counter rows stay locked only from here to the commit
        FinishCounts.add(sql, scheduleOfApplied.keySet(), now);
        return new Written(effects.completed(), alerted);
    }
}
