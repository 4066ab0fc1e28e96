package dev.idem.wire;

import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Verifies Standard Webhooks signatures over the raw body bytes, in constant time, with a timestamp
 * tolerance both ways. Accepts several {@code v1,} signatures in one header and several secrets.
 */
public final class StandardWebhooksVerifier {
    /** The default timestamp tolerance, five minutes either way. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    private final List<SigningSecret> secrets;
    private final Duration tolerance;
    private final Clock clock;

    public StandardWebhooksVerifier(List<SigningSecret> secrets, Duration tolerance, Clock clock) {
        if (secrets.isEmpty()) throw new IllegalArgumentException("at least one signing secret is needed");
        if (tolerance.isNegative()) throw new IllegalArgumentException("tolerance must not be negative");
        this.secrets = List.copyOf(secrets);
        this.tolerance = tolerance;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Checks the three {@code webhook-*} header values against the raw body bytes.
     *
     * @return valid when any {@code v1,} signature matches any secret and the timestamp is within the tolerance
     */
    public SignatureCheck verify(String webhookId, String timestamp, String signatureHeader, byte[] body) {
        if (webhookId == null || webhookId.isBlank()) return SignatureCheck.failed("missing webhook-id header");
        if (timestamp == null || timestamp.isBlank()) return SignatureCheck.failed("missing webhook-timestamp header");
        if (signatureHeader == null || signatureHeader.isBlank())
            return SignatureCheck.failed("missing webhook-signature header");
        long ts;
        try {
            ts = Long.parseLong(timestamp.trim());
        } catch (NumberFormatException e) {
            return SignatureCheck.failed("webhook-timestamp is not unix seconds");
        }
        long now = clock.instant().getEpochSecond();
        if (Math.abs(now - ts) > tolerance.toSeconds())
            return SignatureCheck.failed("webhook-timestamp outside tolerance");
        boolean matched = false;
        for (SigningSecret secret : secrets) {
            byte[] expected = WebhookSigner.hmac(secret, webhookId, ts, body);
            for (String part : signatureHeader.trim().split(" +")) {
                int comma = part.indexOf(',');
                if (comma < 0 || !part.substring(0, comma).equals("v1")) continue;
                byte[] given;
                try {
                    given = Base64.getDecoder().decode(part.substring(comma + 1));
                } catch (IllegalArgumentException e) {
                    continue;
                }
                // keep comparing after a match so timing does not reveal which secret or signature matched
                matched |= MessageDigest.isEqual(expected, given);
            }
        }
        return matched ? SignatureCheck.ok() : SignatureCheck.failed("no signature matches");
    }
}
