package dev.idem.wire;

/**
 * Outcome of checking one request's signature, whatever the scheme (Standard Webhooks, Stripe, GitHub): the one
 * {@code (valid, reason)} type of the wire module and the receiver SDK.
 *
 * @param valid whether a signature matched (within the tolerance, for schemes that sign a timestamp)
 * @param reason why it failed, null when valid; never echoes a secret or an expected signature
 */
public record SignatureCheck(boolean valid, String reason) {
    // package-private short forms, kept for the verifiers written against them (HmacSha256Verifier)
    static final SignatureCheck OK = new SignatureCheck(true, null);

    /** A passed check. */
    public static SignatureCheck ok() {
        return OK;
    }

    /** A failed check with its reason. */
    public static SignatureCheck failed(String reason) {
        return new SignatureCheck(false, reason);
    }

    static SignatureCheck fail(String reason) {
        return failed(reason);
    }
}
