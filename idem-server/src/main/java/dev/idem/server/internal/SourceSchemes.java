package dev.idem.server.internal;

import dev.idem.core.Source;
import dev.idem.wire.GitHubSignatureVerifier;
import dev.idem.wire.HmacSha256Verifier;
import dev.idem.wire.SignatureCheck;
import dev.idem.wire.SigningSecret;
import dev.idem.wire.StandardWebhooksVerifier;
import dev.idem.wire.StripeSignatureVerifier;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The verification schemes of inbound sources, each delegating to the wire module's verifier over the raw request
 * bytes (constant-time comparisons there), and where each finds the provider's event id for {@code dedup: auto}.
 */
final class SourceSchemes {
    static final String STRIPE = "stripe";
    static final String GITHUB = "github";
    static final String STANDARD_WEBHOOKS = "standard_webhooks";
    static final String HMAC_SHA256 = "hmac_sha256";
    static final Set<String> ALL = Set.of(STRIPE, GITHUB, STANDARD_WEBHOOKS, HMAC_SHA256);

    private SourceSchemes() {}

    /**
     * Verifies a request to {@code source}'s ingest route.
     *
     * @param headers the request's header values by name (case-insensitive lookup)
     */
    static SignatureCheck verify(Source source, UnaryOperator<String> headers, byte[] body, Clock clock) {
        List<String> secrets = source.secretsAt(clock.instant());
        return switch (source.scheme()) {
            case STRIPE ->
                new StripeSignatureVerifier(secrets, source.tolerance(), clock)
                        .verify(headers.apply(StripeSignatureVerifier.HEADER), body);
            case GITHUB ->
                new GitHubSignatureVerifier(secrets).verify(headers.apply(GitHubSignatureVerifier.HEADER), body);
            case STANDARD_WEBHOOKS ->
                new StandardWebhooksVerifier(
                                secrets.stream().map(SigningSecret::parse).toList(), source.tolerance(), clock)
                        .verify(
                                headers.apply("webhook-id"),
                                headers.apply("webhook-timestamp"),
                                headers.apply("webhook-signature"),
                                body);
            case HMAC_SHA256 ->
                new HmacSha256Verifier(source.header(), HmacSha256Verifier.Encoding.parse(source.encoding()), secrets)
                        .verify(headers.apply(source.header()), body);
            default ->
                throw new IllegalStateException("source " + source.id() + " has unknown scheme " + source.scheme());
        };
    }

    /** Why {@code secret} cannot serve {@code scheme}, or null when it can. */
    static String secretProblem(String scheme, String secret) {
        if (!STANDARD_WEBHOOKS.equals(scheme)) return null;
        try {
            SigningSecret.parse(secret);
            return null;
        } catch (IllegalArgumentException e) {
            return "a standard_webhooks secret is whsec_ followed by base64 (" + e.getMessage() + ")";
        }
    }

    /** Where {@code dedup: auto} finds the event id: a header name, {@code json:/id}, or null (no dedup). */
    static String autoDedup(String scheme) {
        return switch (scheme) {
            case STRIPE -> "json:/id";
            case GITHUB -> "header:" + GitHubSignatureVerifier.DELIVERY_HEADER;
            case STANDARD_WEBHOOKS -> "header:webhook-id";
            default -> null;
        };
    }
}
