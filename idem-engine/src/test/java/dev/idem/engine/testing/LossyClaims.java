package dev.idem.engine.testing;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store's queue whose next non-empty claims commit and then fail, as when the connection breaks after
 * PostgreSQL committed but before its answer arrived: the rows are leased to the caller, who never sees them.
 * Everything else goes straight to the real queue.
 */
public final class LossyClaims implements DeliveryQueue {
    private final DeliveryQueue real;
    private final AtomicInteger toLose;

    public LossyClaims(DeliveryQueue real, int claimsToLose) {
        this.real = real;
        this.toLose = new AtomicInteger(claimsToLose);
    }

    @Override
    public List<Claim> claimDue(String owner, Duration lease, int limit, Duration lookahead, Fairness fairness) {
        List<Claim> claims = real.claimDue(owner, lease, limit, lookahead, fairness);
        if (!claims.isEmpty() && toLose.getAndDecrement() > 0)
            throw new StoreException(
                    "connection reset after the claim of " + claims.size() + " deliveries committed", null, true);
        return claims;
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
    public long depth() {
        return real.depth();
    }

    @Override
    public void notifyDue() {
        real.notifyDue();
    }
}
