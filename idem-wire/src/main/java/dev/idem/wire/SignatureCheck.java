package dev.idem.wire;

/**
 * Outcome of checking a Stripe or GitHub style signature; {@code reason} says why it failed and never
 * echoes a secret or an expected signature.
 */
public record SignatureCheck(boolean valid, String reason) {
    static final SignatureCheck OK = new SignatureCheck(true, null);

    static SignatureCheck fail(String reason) {
        return new SignatureCheck(false, reason);
    }
}
