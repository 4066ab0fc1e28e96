package dev.idem.engine.testing;

import dev.idem.core.store.DeliveryQueue;
import dev.idem.core.store.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store's queue whose next non-empty claims commit and then fail, as when the connection breaks after
 * PostgreSQL committed but before its answer arrived: the rows are leased to the caller, who never sees them.
 * Everything else goes straight to the real queue.
 */
public final class LossyClaims extends ForwardingQueue {
    private final AtomicInteger toLose;

    public LossyClaims(DeliveryQueue real, int claimsToLose) {
        super(real);
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
}
