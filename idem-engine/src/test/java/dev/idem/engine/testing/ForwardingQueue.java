package dev.idem.engine.testing;

import dev.idem.core.store.DeliveryQueue;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A real store's queue with every call passed through: tests override the one call whose timing or answer they change. */
public abstract class ForwardingQueue implements DeliveryQueue {
    protected final DeliveryQueue real;

    protected ForwardingQueue(DeliveryQueue real) {
        this.real = real;
    }

    @Override
    public List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return real.claimDue(owner, lease, limit, lookahead, fairness);
    }

    @Override
    public List<Claim> claimDuePassingOver(
            String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        return real.claimDuePassingOver(owner, lease, limit, lookahead, fairness);
    }

    @Override
    public Completed complete(String owner, List<Outcome> outcomes) {
        return real.complete(owner, outcomes);
    }

    @Override
    public int reapExpired() {
        return real.reapExpired();
    }

    @Override
    public int release(String owner) {
        return real.release(owner);
    }

    @Override
    public int releaseExcept(String owner, Collection<String> keep) {
        return real.releaseExcept(owner, keep);
    }

    @Override
    public Optional<Instant> nextDueAt(Fairness fairness) {
        return real.nextDueAt(fairness);
    }

    @Override
    public int unclaim(String owner, List<Claim> claims) {
        return real.unclaim(owner, claims);
    }

    @Override
    public List<Claim> confirmHeld(String owner, List<Claim> claims) {
        return real.confirmHeld(owner, claims);
    }

    @Override
    public int fillRouting(int limit) {
        return real.fillRouting(limit);
    }

    @Override
    public Instant now() {
        return real.now();
    }

    @Override
    public int pruneFinished(Instant before, int limit) {
        return real.pruneFinished(before, limit);
    }

    @Override
    public int pruneSettledSchedules(Instant before, int limit) {
        return real.pruneSettledSchedules(before, limit);
    }

    @Override
    public int pruneMessages(Instant before, int limit) {
        return real.pruneMessages(before, limit);
    }

    @Override
    public int pruneFinishCounts(Instant before, int limit) {
        return real.pruneFinishCounts(before, limit);
    }

    @Override
    public long reclaimSpace(int pages) {
        return real.reclaimSpace(pages);
    }

    @Override
    public int pruneFlowUsage(Instant before, int limit) {
        return real.pruneFlowUsage(before, limit);
    }

    @Override
    public long depth() {
        return real.depth();
    }

    @Override
    public void notifyDue() {
        real.notifyDue();
    }
}
