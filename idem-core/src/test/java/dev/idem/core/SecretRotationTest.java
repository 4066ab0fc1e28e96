package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SecretRotationTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void aSourcesRotatedOutSecretVerifiesForTwentyFourHoursAndNotAMillisecondLonger() {
        assertThat(SecretRotation.OVERLAP).isEqualTo(Duration.ofHours(24));
        Source s = new Source(
                        "src_1",
                        new Tenant("prj_1", Mode.TEST),
                        "stripe",
                        "stripe",
                        "whsec_old",
                        null,
                        null,
                        null,
                        null,
                        Duration.ofMinutes(5),
                        "https://example.com/in",
                        "auto",
                        Source.DEFAULT_RATE_LIMIT,
                        false,
                        T0,
                        T0)
                .withSecret("whsec_new", T0);
        assertThat(s.previousExpiresAt()).isEqualTo(T0.plus(SecretRotation.OVERLAP));
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(24)).minusMillis(1))).containsExactly("whsec_new", "whsec_old");
        assertThat(s.secretsAt(T0.plus(Duration.ofHours(24)))).containsExactly("whsec_new");
    }
}
