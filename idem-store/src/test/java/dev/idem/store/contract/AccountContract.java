package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.ApiKey;
import dev.idem.core.Mode;
import dev.idem.core.Project;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.wire.SigningSecret;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Projects, API keys and signing secrets. */
abstract class AccountContract extends StoreTestBase {
    @Test
    void projectsAreFoundByIdAndNameAndCounted() {
        Project p = new Project("prj_1", "default", T0);
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().count())).isZero();
        store.useTransaction(tx -> tx.projects().insert(p));
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().find("prj_1")))
                .contains(p);
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().findByName("default")))
                .contains(p);
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().findByName("other")))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().count())).isEqualTo(1);
    }

    @Test
    void aSecondProjectWithTheSameNameIsRefused() {
        store.useTransaction(tx -> tx.projects().insert(new Project("prj_1", "default", T0)));
        assertThatThrownBy(() -> store.useTransaction(tx -> tx.projects().insert(new Project("prj_2", "default", T0))))
                .isInstanceOf(StoreException.class);
        assertThat(store.inTransaction((StoreTx tx) -> tx.projects().count())).isEqualTo(1);
    }

    @Test
    void apiKeysAreFoundByHashListedNewestFirstAndRevokedOnce() {
        store.useTransaction(tx -> tx.projects().insert(new Project("prj_1", "default", T0)));
        ApiKey test = new ApiKey("key_1", new Tenant("prj_1", Mode.TEST), "a".repeat(64), "sk_test_abc", T0, null);
        ApiKey live = new ApiKey(
                "key_2", new Tenant("prj_1", Mode.LIVE), "b".repeat(64), "sk_live_abc", T0.plusSeconds(1), null);
        store.useTransaction(tx -> {
            tx.apiKeys().insert(test);
            tx.apiKeys().insert(live);
        });
        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().findByHash("a".repeat(64))))
                .contains(test);
        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().findByHash("c".repeat(64))))
                .isEmpty();
        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().list("prj_1")))
                .containsExactly(live, test);

        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().revoke("key_1", T0.plusSeconds(5))))
                .isTrue();
        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().revoke("key_1", T0.plusSeconds(6))))
                .isFalse();
        assertThat(store.inTransaction((StoreTx tx) -> tx.apiKeys().revoke("key_9", T0)))
                .isFalse();
        ApiKey revoked = store.inTransaction((StoreTx tx) -> tx.apiKeys().findByHash("a".repeat(64)))
                .orElseThrow();
        assertThat(revoked.active()).isFalse();
        assertThat(revoked.revokedAt()).isEqualTo(T0.plusSeconds(5));
    }

    @Test
    void signingSecretsRoundTripPerTenantAndRotationReplacesThem() {
        Tenant live = new Tenant(tenant.projectId(), Mode.LIVE);
        SecureRandom random = new SecureRandom();
        SigningSecrets first = new SigningSecrets(tenant, SigningSecret.generate(random));
        store.useTransaction(tx -> tx.signingSecrets().save(first));
        assertThat(store.inTransaction((StoreTx tx) -> tx.signingSecrets().find(tenant)))
                .contains(first);
        assertThat(store.inTransaction((StoreTx tx) -> tx.signingSecrets().find(live)))
                .isEmpty();

        SigningSecrets rotated = first.rotatedTo(SigningSecret.generate(random), T0)
                .rotatedTo(SigningSecret.generate(random), T0.plus(Duration.ofHours(1)));
        store.useTransaction(tx -> tx.signingSecrets().save(rotated));
        SigningSecrets back = store.inTransaction(
                        (StoreTx tx) -> tx.signingSecrets().find(tenant))
                .orElseThrow();
        assertThat(back).isEqualTo(rotated);
        assertThat(back.current().reveal()).isEqualTo(rotated.current().reveal());
        assertThat(back.activeAt(T0.plus(Duration.ofHours(2)))).hasSize(3).endsWith(first.current());
    }
}
