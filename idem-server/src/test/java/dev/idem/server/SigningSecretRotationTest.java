package dev.idem.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.SecretRotation;
import dev.idem.core.store.Store;
import dev.idem.store.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/security.md, signing secrets: after a rotation deliveries carry the old secret's signature too, for 24 h. */
class SigningSecretRotationTest {
    @TempDir
    Path dir;

    @Test
    void aRotatedOutSigningSecretKeepsSigningForTwentyFourHours() {
        try (Store store = TestStores.sqlite(dir, Clock.systemUTC());
                TestNode node = new TestNode(store, dir, Clock.systemUTC(), 0)) {
            String old = node.call("GET", "/v1/signing-secret", null)
                    .json()
                    .get("secret")
                    .asText();
            Instant before = Instant.now();
            var rotated = node.call("POST", "/v1/signing-secret/rotate", null);
            Instant after = Instant.now();
            assertThat(rotated.status()).as(rotated.raw()).isEqualTo(200);
            assertThat(rotated.json().get("secret").asText()).isNotEqualTo(old);
            Instant expires =
                    Instant.parse(rotated.json().get("previous_expires_at").asText());
            assertThat(SecretRotation.OVERLAP).isEqualTo(Duration.ofHours(24));
            assertThat(expires)
                    .isBetween(
                            before.plus(SecretRotation.OVERLAP).minusMillis(1),
                            after.plus(SecretRotation.OVERLAP).plusMillis(1));
        }
    }
}
