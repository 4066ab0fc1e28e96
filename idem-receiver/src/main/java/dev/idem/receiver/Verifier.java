package dev.idem.receiver;

import dev.idem.wire.GitHubSignatureVerifier;
import dev.idem.wire.SignatureCheck;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.StripeSignatureVerifier;
import dev.idem.wire.WebhookHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Checks a request's signature over its raw body bytes, never over a re-serialised body. All modes compare in
 * constant time and accept several secrets, so a secret can be rotated without downtime.
 */
@FunctionalInterface
public interface Verifier {

    /**
     * @param headers looks a header up by name, case-insensitively; null when absent
     * @param rawBody the body exactly as received
     * @return valid, or invalid with a reason that never contains a secret or an expected signature
     */
    SignatureCheck verify(Function<String, String> headers, byte[] rawBody);

    /** Standard Webhooks ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature}), as Idem signs. */
    static Verifier standardWebhooks(List<String> secrets, Duration tolerance, Clock clock) {
        var v = new StandardWebhooksVerifier(
                secrets.stream().map(SigningSecret::parse).toList(), tolerance, clock);
        return (h, body) -> v.verify(
                h.apply(WebhookHeaders.WEBHOOK_ID),
                h.apply(WebhookHeaders.WEBHOOK_TIMESTAMP),
                h.apply(WebhookHeaders.WEBHOOK_SIGNATURE),
                body);
    }

    /** Standard Webhooks with the default five-minute tolerance and the system clock. */
    static Verifier standardWebhooks(String... secrets) {
        return standardWebhooks(List.of(secrets), StandardWebhooksVerifier.DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    /** Stripe's {@code Stripe-Signature} ({@code t=…,v1=…}), 300 s tolerance by default. */
    static Verifier stripe(List<String> secrets, Duration tolerance, Clock clock) {
        var v = new StripeSignatureVerifier(secrets, tolerance, clock);
        return (h, body) -> v.verify(h.apply(StripeSignatureVerifier.HEADER), body);
    }

    /** GitHub's {@code X-Hub-Signature-256}; GitHub signs no timestamp. */
    static Verifier github(List<String> secrets) {
        var v = new GitHubSignatureVerifier(secrets);
        return (h, body) -> v.verify(h.apply(GitHubSignatureVerifier.HEADER), body);
    }

    /** Accepts everything. For local practice only (e.g. {@code idem listen} without {@code --secret}). */
    static Verifier acceptAll() {
        return (h, body) -> SignatureCheck.ok();
    }
}
