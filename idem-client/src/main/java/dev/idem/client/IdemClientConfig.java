package dev.idem.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * How an {@link IdemClient} talks to Idem. Immutable; {@link Builder#build()} validates every field once and names
 * the one at fault. Defaults: 5 attempts per call, backoff from 500 ms doubling to at most 8 s with jitter, a
 * {@code Retry-After} of up to 60 s honoured, 5 s to connect, 30 s per attempt.
 */
public final class IdemClientConfig {
    private final URI baseUrl;
    private final String apiKey;
    private final int maxAttempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration maxRetryAfter;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final Clock clock;
    private final Sleeper sleeper;
    private final RandomGenerator random;
    private final Supplier<String> idempotencyKeys;
    private final HttpClient httpClient;

    private IdemClientConfig(Builder b) {
        this.baseUrl = b.baseUrl;
        this.apiKey = b.apiKey;
        this.maxAttempts = b.maxAttempts;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.maxRetryAfter = b.maxRetryAfter;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.random = b.random;
        this.idempotencyKeys = b.idempotencyKeys;
        this.httpClient = b.httpClient;
    }

    /** A builder for the node at {@code baseUrl} ({@code http://127.0.0.1:8080}); the API key is set separately. */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** A builder holding this configuration, to derive another. */
    public Builder toBuilder() {
        Builder b = new Builder(baseUrl.toString());
        b.apiKey = apiKey;
        b.maxAttempts = maxAttempts;
        b.initialBackoff = initialBackoff;
        b.maxBackoff = maxBackoff;
        b.maxRetryAfter = maxRetryAfter;
        b.connectTimeout = connectTimeout;
        b.requestTimeout = requestTimeout;
        b.clock = clock;
        b.sleeper = sleeper;
        b.random = random;
        b.idempotencyKeys = idempotencyKeys;
        b.httpClient = httpClient;
        return b;
    }

    public URI baseUrl() {
        return baseUrl;
    }

    /** The {@code sk_test_…}/{@code sk_live_…} key, or null (only the recurrence preview and health need none). */
    public String apiKey() {
        return apiKey;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration initialBackoff() {
        return initialBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Clock clock() {
        return clock;
    }

    public Sleeper sleeper() {
        return sleeper;
    }

    public RandomGenerator random() {
        return random;
    }

    public Supplier<String> idempotencyKeys() {
        return idempotencyKeys;
    }

    /** The caller's own {@link HttpClient}, or null for one the client builds (HTTP/1.1, no redirects). */
    public HttpClient httpClient() {
        return httpClient;
    }

    /**
     * The longest one call can take with every attempt timing out and every wait at its longest: what the outbox
     * relay's lease must outlast so that no two relays send one row at once.
     */
    public Duration worstCaseCallDuration() {
        Duration wait = maxBackoff.compareTo(maxRetryAfter) > 0 ? maxBackoff : maxRetryAfter;
        return connectTimeout.plus(requestTimeout).multipliedBy(maxAttempts).plus(wait.multipliedBy(maxAttempts - 1L));
    }

    @Override
    public String toString() {
        return "IdemClientConfig{" + baseUrl + ", key "
                + (apiKey == null ? "none" : apiKey.substring(0, Math.min(8, apiKey.length())) + "…")
                + ", " + maxAttempts + " attempts, backoff " + initialBackoff + ".." + maxBackoff
                + ", Retry-After up to " + maxRetryAfter
                + ", connect " + connectTimeout + ", request " + requestTimeout + "}";
    }

    /** Collects settings; {@link #build()} checks them all. */
    public static final class Builder {
        private URI baseUrl;
        private final String rawBaseUrl;
        private String apiKey;
        private int maxAttempts = 5;
        private Duration initialBackoff = Duration.ofMillis(500);
        private Duration maxBackoff = Duration.ofSeconds(8);
        private Duration maxRetryAfter = Duration.ofSeconds(60);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Clock clock = Clock.systemUTC();
        private Sleeper sleeper = Sleeper.SYSTEM;
        private RandomGenerator random = new SecureRandom();
        private Supplier<String> idempotencyKeys = () -> UUID.randomUUID().toString();
        private HttpClient httpClient;

        private Builder(String baseUrl) {
            this.rawBaseUrl = baseUrl;
        }

        /** The API key sent as {@code Authorization: Bearer …}. */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** HTTP attempts per call, the first included (1 = never retry; at most 20). */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The wait before the first retry; it doubles per retry up to {@link #maxBackoff}, each wait jittered down by up to half. */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
            return this;
        }

        /** The longest {@code Retry-After} (429, 503) the client waits out; a longer one ends the call, retryable. */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = maxRetryAfter;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** How long one attempt may wait for its whole answer. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
            return this;
        }

        /** The clock that reads an HTTP-date {@code Retry-After}. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** What waits between attempts (tests record instead of sleeping). */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        /** The randomness of the backoff jitter. */
        public Builder random(RandomGenerator random) {
            this.random = random;
            return this;
        }

        /** Where automatic {@code Idempotency-Key}s come from (default: random UUIDs); each must be unique. */
        public Builder idempotencyKeys(Supplier<String> idempotencyKeys) {
            this.idempotencyKeys = idempotencyKeys;
            return this;
        }

        /** Your own {@link HttpClient} (proxy, TLS settings); its connect timeout then applies instead of ours. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /** @throws IllegalArgumentException naming the first setting that is wrong and what it accepts */
        public IdemClientConfig build() {
            baseUrl = parseBaseUrl(rawBaseUrl);
            if (apiKey != null && (apiKey.isBlank() || apiKey.chars().anyMatch(c -> c <= ' ' || c > '~')))
                throw new IllegalArgumentException(
                        "apiKey must be printable ASCII without spaces (sk_test_… or sk_live_…)");
            if (maxAttempts < 1 || maxAttempts > 20)
                throw new IllegalArgumentException("maxAttempts must be between 1 and 20, got " + maxAttempts);
            positive("initialBackoff", initialBackoff);
            positive("maxBackoff", maxBackoff);
            if (maxBackoff.compareTo(initialBackoff) < 0)
                throw new IllegalArgumentException("maxBackoff (" + maxBackoff
                        + ") must not be shorter than initialBackoff (" + initialBackoff + ")");
            Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
            if (maxRetryAfter.isNegative())
                throw new IllegalArgumentException("maxRetryAfter must not be negative, got " + maxRetryAfter);
            positive("connectTimeout", connectTimeout);
            positive("requestTimeout", requestTimeout);
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(sleeper, "sleeper");
            Objects.requireNonNull(random, "random");
            Objects.requireNonNull(idempotencyKeys, "idempotencyKeys");
            return new IdemClientConfig(this);
        }

        private static URI parseBaseUrl(String raw) {
            if (raw == null || raw.isBlank())
                throw new IllegalArgumentException("baseUrl is required, e.g. http://127.0.0.1:8080");
            URI u;
            try {
                u = URI.create(raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("baseUrl '" + raw + "' is not a URL: " + e.getMessage(), e);
            }
            if (!"http".equalsIgnoreCase(u.getScheme()) && !"https".equalsIgnoreCase(u.getScheme()))
                throw new IllegalArgumentException("baseUrl must start with http:// or https://, got '" + raw + "'");
            if (u.getHost() == null) throw new IllegalArgumentException("baseUrl '" + raw + "' has no host");
            if (u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null)
                throw new IllegalArgumentException("baseUrl '" + raw
                        + "' must not carry a query, fragment or credentials (the API key is set with apiKey)");
            return u;
        }

        private static void positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
        }
    }
}
