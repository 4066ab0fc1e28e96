package dev.idem.server.internal;

import java.time.Clock;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-API-key token buckets on this node: {@code perSecond} tokens a second, bursts up to twice that.
 * Several nodes each allow that rate; a cluster-wide limit would cost a database write per request.
 */
public final class RateLimiter {
    private final int perSecond;
    private final Clock clock;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        double tokens;
        long lastMillis;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.lastMillis = now;
        }
    }

    /** @param perSecond 0 turns limiting off */
    public RateLimiter(int perSecond, Clock clock) {
        this.perSecond = perSecond;
        this.clock = clock;
    }

    /** Takes one token for {@code key}; throws 429 with {@code Retry-After} when there is none. */
    public void acquire(String key) {
        if (perSecond == 0) return;
        acquire(key, perSecond, "this API key");
    }

    /**
     * Takes one token for {@code key} from a bucket of {@code rate} tokens a second (bursts up to twice that); throws
     * 429 with {@code Retry-After}, naming {@code subject}, when there is none. Buckets of every rate share this limiter's
     * table, so keys must not collide across uses (prefix them).
     */
    void acquire(String key, int rate, String subject) {
        long now = clock.millis();
        double cap = 2.0 * rate;
        Bucket b = buckets.computeIfAbsent(key, k -> new Bucket(cap, now));
        double wait;
        synchronized (b) {
            // a caller that read the clock before another one took its token may come in with an earlier instant:
            // no time passed for it (else a high rate under many concurrent callers drains the bucket below zero)
            b.tokens = Math.min(cap, b.tokens + Math.max(0, now - b.lastMillis) * rate / 1000.0);
            b.lastMillis = Math.max(b.lastMillis, now);
            if (b.tokens >= 1) {
                b.tokens -= 1;
                return;
            }
            wait = (1 - b.tokens) / rate;
        }
        if (buckets.size() > 100_000) buckets.clear();
        throw ApiException.rateLimited(Math.max(1, (long) Math.ceil(wait)), subject);
    }
}
