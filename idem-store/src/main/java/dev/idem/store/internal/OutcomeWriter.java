package dev.idem.store.internal;

import dev.idem.core.IdGenerator;
import dev.idem.core.store.DeliveryQueue.Completed;
import dev.idem.core.store.DeliveryQueue.Outcome;
import java.util.List;

/** Applies one {@link dev.idem.core.store.DeliveryQueue#complete} in the caller's transaction. */
final class OutcomeWriter {
    private final Dialect dialect;
    private final DueSignal signal;
    private final Completion completion;
    private final Alerts alerts;

    OutcomeWriter(Dialect dialect, DueSignal signal, IdGenerator ids) {
        this.dialect = dialect;
        this.signal = signal;
        this.completion = dialect.completion();
        this.alerts = new Alerts(ids);
    }

    /**
     * @param completed what was applied
     * @param alerted whether an alert was written (the dispatchers are signalled when the transaction commits)
     */
    record Written(Completed completed, boolean alerted) {}

    Written write(Sql sql, String owner, List<Outcome> outcomes, long now) {
        Completion.Applied applied = completion.apply(sql, owner, outcomes, now);
        Completed completed = applied.completed();
        // a schedule whose last delivery just became final is completed, in the same transaction
        Settlement.ofLockedSchedules(sql, applied.ended(), now);
        // the alerts of what this batch made dead or paused, as durable as the outcomes (see Alerts)
        boolean alerted = alerts.raise(new JdbcTx(sql, dialect, signal), sql, outcomes, completed, now);
        return new Written(completed, alerted);
    }
}
