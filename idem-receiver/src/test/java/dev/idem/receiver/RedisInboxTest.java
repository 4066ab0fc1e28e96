package dev.idem.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

class RedisInboxTest extends ProcessSharedInboxContract {
    static final String PREFIX = TestDatabases.REDIS_PREFIX + "inbox:";
    static JedisPooled redis;

    @BeforeAll
    static void open() {
        redis = TestDatabases.redis();
        TestDatabases.clearRedis(redis, "inbox:");
    }

    @AfterAll
    static void close() {
        TestDatabases.clearRedis(redis, "inbox:");
        redis.close();
    }

    @Override
    protected Inbox newInbox(Duration lease) {
        return new RedisInbox(redis, PREFIX, lease, DedupWindow.of(Duration.ofDays(3), Duration.ofDays(1)));
    }

    // Redis keeps time itself: claims really expire, so leases are short and the test sleeps
    @Override
    protected void letTimePass(Duration d) throws InterruptedException {
        clock.advance(d);
        Thread.sleep(d.toMillis());
    }

    @Override
    protected Duration shortLease() {
        return Duration.ofMillis(2500);
    }

    @Override
    protected Duration childLease() {
        // long enough to outlast killing the child on a loaded machine, so "too early" is really too early
        return Duration.ofMillis(5000);
    }

    @Override
    protected String childStoreSpec() {
        return "redis:" + PREFIX;
    }

    // Redis prunes by TTL, so the clock-driven contract does not apply; check the TTL instead
    @Override
    @Test
    void pruningDeletesKeysOlderThanTheWindowAndKeepsNewerOnes() throws Exception {
        String k = key("ttl");
        Outcome o = newInbox(shortLease()).execute(k, () -> "r");
        assertThat(o.status()).isEqualTo(Outcome.Status.PROCESSED);
        long ttl = redis.pttl(PREFIX + k);
        assertThat(ttl)
                .isBetween(
                        Duration.ofDays(3).minusMinutes(1).toMillis(),
                        Duration.ofDays(3).toMillis());
        assertThat(newInbox(shortLease()).prune(clock.instant(), 100)).isZero();
    }

    @Override
    @Test
    void pruningKeepsALiveClaimWhateverItsAge() {
        String k = key("claimttl");
        newInbox(shortLease()).claim(k, Duration.ofSeconds(5));
        assertThat(redis.pttl(PREFIX + k)).isBetween(1L, 5000L);
    }

    @Test
    void aClaimStartsWithTheShortLeaseAndIsExtendedToTheWindowOnCompletion() {
        String k = key("extend");
        ClaimAttempt a = newInbox(shortLease()).claim(k, shortLease());
        assertThat(redis.pttl(PREFIX + k)).isBetween(1L, shortLease().toMillis());
        a.claim().complete(null);
        assertThat(redis.pttl(PREFIX + k)).isGreaterThan(Duration.ofDays(2).toMillis());
    }
}
