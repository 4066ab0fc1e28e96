package dev.idem.client;

/**
 * Per-call options. Without them a mutating call gets a fresh {@code Idempotency-Key} that it keeps across its own
 * retries; give your own key to make a call idempotent across processes (the outbox relay gives each row's id).
 */
public final class RequestOptions {
    private static final RequestOptions NONE = new RequestOptions(null);
    private final String idempotencyKey;

    private RequestOptions(String idempotencyKey) {
        this.idempotencyKey = idempotencyKey;
    }

    /** No options: an automatic key for mutating calls. */
    public static RequestOptions none() {
        return NONE;
    }

    /**
     * Sends {@code key} as the {@code Idempotency-Key} (1 to 255 characters). Idem keeps a key for 24 hours per project
     * and mode: the same key with the same request replays the first answer; with another request it is refused
     * (409 {@code idempotency_key_reuse}).
     */
    public static RequestOptions idempotencyKey(String key) {
        if (key == null || key.isEmpty() || key.length() > 255)
            throw new IllegalArgumentException("an Idempotency-Key must be 1 to 255 characters, got "
                    + (key == null ? "null" : key.length() + " characters"));
        return new RequestOptions(key);
    }

    /** The key given, or null for an automatic one. */
    public String idempotencyKey() {
        return idempotencyKey;
    }
}
