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

    /** Marks the key processed (for the dedup window) and keeps {@code result} for duplicates. */
    void complete(String result);

    /** Releases the claim unless it was completed; safe to call more than once. */
    @Override
    void close();
}
