package dev.idem.receiver;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * An inbox in Redis: a claim is {@code SET key c:<token> NX PX <lease>}, so a crashed worker's claim simply
 * expires; completing it rewrites the value to {@code d…} with a TTL of the dedup window, so Redis prunes keys
 * itself. Each decision is one round trip (a Lua script). Thread-safe when given a pooled client
 * ({@code JedisPooled}). Redis cannot join your database transaction: use claim → work → mark
 * ({@link #execute}), and make the work itself safe to retry should the completion be lost.
 */
public final class RedisInbox implements Inbox, AutoCloseable {
    private static final String CLAIM = """
            local ok = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
            if ok then return {1, '', 0} end
            local v = redis.call('GET', KEYS[1])
            if not v then return {2, '', 0} end
            return {0, v, redis.call('PTTL', KEYS[1])}""";
    private static final String COMPLETE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
              return 1
            end
            return 0""";
    private static final String EXTEND = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
            return 0""";
    private static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0""";

    private final UnifiedJedis redis;
    private final boolean ownsClient;
    private final String prefix;
    private final Duration lease;
    private final DedupWindow window;
    private volatile String claimSha;

    /**
     * @param redis a pooled client, e.g. {@code new JedisPooled("redis://host:6379")}
     * @param prefix prepended to every key, e.g. {@code "myapp:inbox:"}
     * @param lease how long a claim lives before another worker may take the key
     * @param window how long processed keys are kept (checked against the sender's retry horizon)
     */
    public RedisInbox(UnifiedJedis redis, String prefix, Duration lease, DedupWindow window) {
        this(redis, prefix, lease, window, false);
    }

    private RedisInbox(UnifiedJedis redis, String prefix, Duration lease, DedupWindow window, boolean ownsClient) {
        this.ownsClient = ownsClient;
        this.redis = Objects.requireNonNull(redis, "redis");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        if (lease.isNegative() || lease.isZero()) throw new IllegalArgumentException("claim lease must be positive");
        this.lease = lease;
        this.window = Objects.requireNonNull(window, "window");
    }

    /** An inbox with its own pooled client to {@code url} ({@code redis://host:port[/db]}), closed by {@link #close()}. */
    public static RedisInbox connect(String url, String prefix, Duration lease, DedupWindow window) {
        return new RedisInbox(
                new redis.clients.jedis.JedisPooled(java.net.URI.create(url)), prefix, lease, window, true);
    }

    /** Closes the client if this inbox opened it ({@link #connect}); a client passed in stays open. */
    @Override
    public void close() {
        if (ownsClient) redis.close();
    }

    @Override
    public Duration defaultLease() {
        return lease;
    }

    @Override
    public ClaimAttempt claim(String key, Duration lease) {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("key must not be empty");
        String token = "c:" + UUID.randomUUID();
        for (int i = 0; i < 8; i++) {
            List<?> r = (List<?>) run(CLAIM, key, token, Long.toString(lease.toMillis()));
            long code = (Long) r.get(0);
            if (code == 1) return ClaimAttempt.granted(new RedisClaim(key, token));
            if (code == 2) continue; // expired between SET and GET: try again
            String value = (String) r.get(1);
            if (value.startsWith("d")) {
                return ClaimAttempt.refused(Outcome.duplicate(key, value.length() > 1 ? value.substring(2) : null));
            }
            long pttl = (Long) r.get(2);
            return ClaimAttempt.refused(Outcome.inProgress(key, Duration.ofMillis(Math.max(pttl, 0))));
        }
        throw new InboxException("key '" + key + "' kept expiring while claiming it", null);
    }

    /** Redis expires processed keys after the dedup window by itself; nothing to delete. */
    @Override
    public int prune(Instant cutoff, int batchSize) {
        return 0;
    }

    private Object run(String script, String key, String... args) {
        try {
            if (script == CLAIM) {
                String sha = claimSha;
                if (sha == null) claimSha = sha = redis.scriptLoad(CLAIM);
                try {
                    return redis.evalsha(sha, List.of(prefix + key), List.of(args));
                } catch (JedisDataException e) {
                    if (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT")) throw e;
                    claimSha = null; // Redis was restarted or flushed its scripts
                }
            }
            return redis.eval(script, List.of(prefix + key), List.of(args));
        } catch (JedisException e) {
            throw new InboxException("redis inbox failed for key '" + key + "': " + e.getMessage(), e);
        }
    }

    /** Redis forgets an expired claim, so a takeover looks like a first claim: {@code tookOver()} is always false. */
    private final class RedisClaim extends HeldClaim {
        RedisClaim(String key, String token) {
            super(key, token, false);
        }

        @Override
        public void extend(Duration lease) {
            checkOpen();
            if (((Long) run(EXTEND, key, token, Long.toString(lease.toMillis()))) == 0L)
                throw new ClaimLostException(key);
        }

        @Override
        public void complete(String result) {
            checkOpen();
            finished = true;
            String done = result == null ? "d" : "d:" + result;
            Object n = run(
                    COMPLETE, key, token, done, Long.toString(window.window().toMillis()));
            if (((Long) n) == 0L) throw new ClaimLostException(key);
        }

        @Override
        public void close() {
            if (finished) return;
            finished = true;
            run(RELEASE, key, token);
        }
    }
}
