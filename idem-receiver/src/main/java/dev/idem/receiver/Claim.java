package dev.idem.receiver;

/**
 * A held, expiring claim on a key (claim → work → mark). Complete it when the work is done; closing it
 * without completing releases it so the next delivery can do the work. If the claim expires first, another
 * worker may take the key over and {@link #complete} fails with {@link ClaimLostException}.
 */
public interface Claim extends AutoCloseable {
    /** The claimed key. */
    String key();

    /** True when this claim took over an expired claim of a worker that crashed or stalled. */
    boolean tookOver();

    /**
     * Extends the claim to {@code lease} from now, for work that runs longer than the lease it started with.
     * Call it periodically (a heartbeat) well before the claim would expire.
     *
     * @throws ClaimLostException when the claim already expired and another worker took the key over
     */
    void extend(java.time.Duration lease);

    /** Marks the key processed (for the dedup window) and keeps {@code result} for duplicates. */
    void complete(String result);

    /** Releases the claim unless it was completed; safe to call more than once. */
    @Override
    void close();
}
