package dev.idem.receiver;

/**
 * What every inbox's claim holds: its key, the token that proves it is still ours, whether it took over an
 * expired claim, and whether it was already completed or released (a claim is used once).
 */
abstract class HeldClaim implements Claim {
    final String key;
    final String token;
    private final boolean tookOver;
    /** Completed or released: no further use. */
    boolean finished;

    HeldClaim(String key, String token, boolean tookOver) {
        this.key = key;
        this.token = token;
        this.tookOver = tookOver;
    }

    @Override
    public final String key() {
        return key;
    }

    @Override
    public boolean tookOver() {
        return tookOver;
    }

    /** @throws IllegalStateException when the claim was already completed or released */
    final void checkOpen() {
        if (finished) throw new IllegalStateException("claim on '" + key + "' was already completed or released");
    }
}
