package dev.idem.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An inbound source: a provider's webhooks (Stripe, GitHub, …) arrive at {@code POST /in/{id}}, are verified with the
 * provider's secret, deduplicated by the provider's event id and forwarded to {@code destination} as deliveries of
 * internal one-shots ({@link Origin#source}). The secret is write-only in the API and never logged.
 *
 * @param scheme how requests are signed: {@code stripe}, {@code github}, {@code standard_webhooks}, {@code hmac_sha256}
 * @param secret the provider's signing secret (as the provider gives it)
 * @param retiredSecrets the secrets replaced in the last {@link SecretRotation#OVERLAP}, still accepted until each one's
 *     expiry, newest first (at most {@link SecretRotation#MAX_RETIRED})
 * @param header the signature header of {@code hmac_sha256} (null for the other schemes: they fix their own)
 * @param encoding {@code hex} or {@code base64} for {@code hmac_sha256}, else null
 * @param tolerance how far a signed timestamp may be from now ({@code stripe}, {@code standard_webhooks})
 * @param dedup {@code auto}, {@code none}, {@code header:<name>} or {@code json:<pointer>}: where the provider's event id is
 * @param rateLimit ingest requests a second this source accepts on each node (bursts of twice that); 429 beyond
 * @param deleted whether the source was deleted (its ingest route then answers 404)
 */
public record Source(
        String id,
        Tenant tenant,
        String name,
        String scheme,
        String secret,
        List<SecretRotation.Retired<String>> retiredSecrets,
        String header,
        String encoding,
        Duration tolerance,
        String destination,
        String dedup,
        int rateLimit,
        boolean deleted,
        Instant createdAt,
        Instant updatedAt) {
    /** The default {@link #rateLimit()}. */
    public static final int DEFAULT_RATE_LIMIT = 100;

    public Source {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(secret, "secret");
        retiredSecrets = retiredSecrets == null ? List.of() : List.copyOf(retiredSecrets);
        Objects.requireNonNull(tolerance, "tolerance");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(dedup, "dedup");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        if (rateLimit < 1) throw new IllegalArgumentException("rate_limit must be at least 1");
    }

    /** The secrets that verify at {@code now}: the current one, then every retired one still working, newest first. */
    public List<String> secretsAt(Instant now) {
        return SecretRotation.activeAt(secret, retiredSecrets, now);
    }

    /**
     * A copy with a new secret; the old one, and every one replaced in the last {@link SecretRotation#OVERLAP}, keep
     * verifying ({@link SecretRotation#retire}). The same secret changes nothing.
     */
    public Source withSecret(String newSecret, Instant now) {
        if (newSecret.equals(secret)) return this;
        return new Source(
                id,
                tenant,
                name,
                scheme,
                newSecret,
                SecretRotation.retire(secret, newSecret, retiredSecrets, now),
                header,
                encoding,
                tolerance,
                destination,
                dedup,
                rateLimit,
                deleted,
                createdAt,
                now);
    }

    /** Returns this source with every field but the identity, the secrets and the creation time replaced. */
    public Source withSettings(
            String name,
            String scheme,
            String header,
            String encoding,
            Duration tolerance,
            String destination,
            String dedup,
            int rateLimit,
            Instant now) {
        return new Source(
                id,
                tenant,
                name,
                scheme,
                secret,
                retiredSecrets,
                header,
                encoding,
                tolerance,
                destination,
                dedup,
                rateLimit,
                deleted,
                createdAt,
                now);
    }

    public Source asDeleted(Instant now) {
        return new Source(
                id,
                tenant,
                name,
                scheme,
                secret,
                retiredSecrets,
                header,
                encoding,
                tolerance,
                destination,
                dedup,
                rateLimit,
                true,
                createdAt,
                now);
    }

    /** Never the secrets: a source may end up in a log line or an exception message. */
    @Override
    public String toString() {
        return "Source[" + id + " " + name + " " + scheme + " -> " + destination + (deleted ? " deleted" : "") + "]";
    }
}
