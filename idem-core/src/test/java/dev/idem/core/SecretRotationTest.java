package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.wire.SigningSecret;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SecretRotationTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private static Source source(String secret) {
        return new Source(
                "src_1",
                new Tenant("prj_1", Mode.TEST),
                "stripe",
                "stripe",
                secret,
                List.of(),
                null,
                null,
                Duration.ofMinutes(5),
                "https://example.com/in",
                "auto",
                Source.DEFAULT_RATE_LIMIT,
                false,
                T0,
                T0);
    }

    @Test
    void aSourcesRotatedOutSecretVerifiesForTwentyFourHoursAndNotAMillisecondLonger() {
        assertThat(SecretRotation.OVERLAP).isEqualTo(Duration.ofHours(24));
        Source s = source("whsec_old").withSecret("whsec_new", T0);
        assertThat(s.retiredSecrets())
                .extracting(SecretRotation.Retired::expiresAt)
                .containsExactly(T0.plus(SecretRotation.OVERLAP));
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(24)).minusMillis(1))).containsExactly("whsec_new", "whsec_old");
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(24)))).containsExactly("whsec_new");
    }

    @Test
    void aSecondRotationWithinTheOverlapKeepsTheFirstSecretVerifyingUntilItsOwnExpiry() {
        Source s = source("a").withSecret("b", T0).withSecret("c", T0.plus(Duration.ofHours(1)));
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(2)))).containsExactly("c", "b", "a");
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(24)))).containsExactly("c", "b");
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(25)))).containsExactly("c");
    }

    @Test
    void atMostFiveRotatedOutSecretsKeepWorkingTheOldestGoesFirst() {
        Source s = source("s0");
        for (int i = 1; i <= 7; i++) s = s.withSecret("s" + i, T0.plusSeconds(i));
        assertThat(SecretRotation.MAX_RETIRED).isEqualTo(5);
        assertThat(s.secretsAt(T0.plusSeconds(10))).containsExactly("s7", "s6", "s5", "s4", "s3", "s2");
    }

    @Test
    void rotatingBackToARetiredSecretKeepsItOnceAsCurrent() {
        Source s = source("a").withSecret("b", T0).withSecret("a", T0.plusSeconds(1));
        assertThat(s.secretsAt(T0.plusSeconds(2))).containsExactly("a", "b");
    }

    @Test
    void projectSigningSecretsSignWithEverySecretRotatedOutInTheLastDay() {
        Random r = new Random(1);
        SigningSecret a = SigningSecret.generate(r);
        SigningSecret b = SigningSecret.generate(r);
        SigningSecret c = SigningSecret.generate(r);
        SigningSecrets s = new SigningSecrets(new Tenant("prj_1", Mode.TEST), a)
                .rotatedTo(b, T0)
                .rotatedTo(c, T0.plus(Duration.ofHours(3)));
        assertThat(s.activeAt(T0.plus(Duration.ofHours(4)))).containsExactly(c, b, a);
        assertThat(s.activeAt(T0.plus(Duration.ofHours(24)))).containsExactly(c, b);
        assertThat(s.overlapEndAt(T0.plus(Duration.ofHours(4)))).isEqualTo(T0.plus(Duration.ofHours(27)));
        assertThat(s.activeAt(T0.plus(Duration.ofHours(27)))).containsExactly(c);
        assertThat(s.overlapEndAt(T0.plus(Duration.ofHours(27)))).isNull();
    }
}
