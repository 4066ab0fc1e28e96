package dev.idem.receiver;

import java.time.Duration;
import java.time.Instant;

/**
 * Remembers which keys were processed, so that at-least-once delivery has an exactly-once effect.
 *
 * <p>Every inbox offers claim → work → mark ({@link #execute}): an expiring claim is taken, the work runs
 * outside any inbox transaction, and the key is marked processed. A worker that crashes leaves a claim that
 * expires, after which the next delivery does the work. A {@link TransactionalInbox} ({@link JdbcInbox}) also
 * offers {@link TransactionalInbox#process}, where the claim and the handler's writes share one transaction.
 */
public interface Inbox {

    /** The claim lease {@link #execute(String, Work)} uses. */
    Duration defaultLease();

    /**
     * Tries to claim {@code key} for {@code lease}. An expired claim of another worker is taken over.
     *
     * @throws InboxException when the store fails
     */
    ClaimAttempt claim(String key, Duration lease);

    /**
     * Claim → work → mark with {@link #defaultLease()}: runs {@code work} unless the key was processed or is
     * being processed. If {@code work} throws, the claim is released and the exception propagates, so the next
     * delivery does the work.
     */
    default Outcome execute(String key, Work work) throws Exception {
        return execute(key, defaultLease(), work);
    }

    /** {@link #execute(String, Work)} with an explicit lease. */
    default Outcome execute(String key, Duration lease, Work work) throws Exception {
        ClaimAttempt attempt = claim(key, lease);
        if (!attempt.granted()) return attempt.refusal();
        try (Claim claim = attempt.claim()) {
            String result = work.run();
            claim.complete(result);
            return Outcome.processed(key, result);
        }
    }

    /**
     * Deletes up to {@code batchSize} processed keys first claimed before {@code cutoff}, and abandoned
     * (expired) claims that old. Unexpired claims are kept whatever their age.
     *
     * @return how many keys were deleted; 0 for stores that expire keys themselves (Redis)
     */
    int prune(Instant cutoff, int batchSize);
}
