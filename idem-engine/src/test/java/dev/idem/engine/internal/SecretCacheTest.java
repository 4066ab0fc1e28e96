package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Mode;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.SigningSecret;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretCacheTest {
    private static final Tenant T = new Tenant("proj_1", Mode.TEST);
    private final SplittableRandom random = new SplittableRandom(7);
    private final AtomicLong nanos = new AtomicLong();
    private Store store;

    @BeforeEach
    void open(@TempDir Path dir) {
        store = TestStores.sqlite(dir, Clock.systemUTC());
    }

    @AfterEach
    void close() {
        store.close();
    }

    private SigningSecrets save(Tenant t, SigningSecret s) {
        SigningSecrets secrets = new SigningSecrets(t, s);
        store.useTransaction(tx -> tx.signingSecrets().save(secrets));
        return secrets;
    }

    @Test
    void openedSecretsAreKeptForASecondThenReadAgainSoARotationReachesTheWire() {
        SecretCache cache = new SecretCache(store, nanos::get, 100);
        SigningSecret first = save(T, SigningSecret.generate(random)).current();
        assertThat(cache.get(T).orElseThrow().current()).isEqualTo(first);

        SigningSecrets rotated = store.inTransaction(tx -> tx.signingSecrets().find(T))
                .orElseThrow()
                .rotatedTo(SigningSecret.generate(random), Instant.now());
        store.useTransaction(tx -> tx.signingSecrets().save(rotated));
        nanos.addAndGet(SecretCache.TTL.toNanos() - 1);
        assertThat(cache.get(T).orElseThrow().current()).isEqualTo(first);
        nanos.addAndGet(1);
        assertThat(cache.get(T).orElseThrow().current()).isEqualTo(rotated.current());
    }

    @Test
    void atMostTheBoundOfTenantsSecretsAreHeldAtOnce() {
        SecretCache cache = new SecretCache(store, nanos::get, 10);
        for (int i = 0; i < 50; i++) {
            Tenant t = new Tenant("proj_" + i, Mode.LIVE);
            save(t, SigningSecret.generate(random));
            assertThat(cache.get(t)).isPresent();
        }
        assertThat(cache.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void theNodesCacheKeepsOpenedSecretsForASecondAtMostAndForABoundedNumberOfTenants() {
        // what docs/security.md promises: the bounds the two tests above check, as every node runs them
        assertThat(SecretCache.TTL).isLessThanOrEqualTo(java.time.Duration.ofSeconds(1));
        assertThat(SecretCache.MAX_TENANTS).isLessThanOrEqualTo(10_000);
    }
}
