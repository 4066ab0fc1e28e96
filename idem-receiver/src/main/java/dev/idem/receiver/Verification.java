package dev.idem.receiver;

/**
 * Outcome of verifying one request's signature.
 *
 * @param valid whether a signature matched within the tolerance
 * @param reason why it failed (null when valid); never contains a secret or an expected signature
 */
public record Verification(boolean valid, String reason) {
    private static final Verification OK = new Verification(true, null);

    /** A passed verification. */
    public static Verification ok() {
        return OK;
    }

    /** A failed verification with its reason. */
    public static Verification failed(String reason) {
        return new Verification(false, reason);
    }
}
