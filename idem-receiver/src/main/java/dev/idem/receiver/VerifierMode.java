package dev.idem.receiver;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

/** The signature schemes a receiver can check, for configuration by name. */
public enum VerifierMode {
    /** Standard Webhooks, what Idem and Svix send. */
    STANDARD_WEBHOOKS,
    /** Stripe's {@code Stripe-Signature}. */
    STRIPE,
    /** GitHub's {@code X-Hub-Signature-256}. */
    GITHUB;

    /** A verifier of this mode; {@code tolerance} is ignored for GitHub, which signs no timestamp. */
    public Verifier verifier(List<String> secrets, Duration tolerance, Clock clock) {
        return switch (this) {
            case STANDARD_WEBHOOKS -> Verifier.standardWebhooks(secrets, tolerance, clock);
            case STRIPE -> Verifier.stripe(secrets, tolerance, clock);
            case GITHUB -> Verifier.github(secrets);
        };
    }

    /** The key extractor that fits this mode: Stripe's event {@code id}, GitHub's {@code X-GitHub-Delivery}. */
    public KeyExtractor defaultKeys() {
        return switch (this) {
            case STANDARD_WEBHOOKS -> KeyExtractor.standard();
            case STRIPE -> KeyExtractor.standard().withJsonField("id");
            case GITHUB -> KeyExtractor.standard().withHeader("X-GitHub-Delivery");
        };
    }
}
