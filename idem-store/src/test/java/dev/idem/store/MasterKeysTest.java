package dev.idem.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MasterKeysTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private final SecureRandom random = new SecureRandom();

    @Test
    void aSealedValueOpensOnlyInTheRowAndColumnItWasSealedFor() {
        SecretCipher cipher = new SecretCipher(MasterKeys.generate(random, T0));
        String sealed = cipher.seal("sources", "src_1", "secret", "whsec_abc");

        assertThat(sealed).startsWith("v1:" + cipher.keys().primaryId() + ":").doesNotContain("whsec_abc");
        assertThat(cipher.open("sources", "src_1", "secret", sealed)).isEqualTo("whsec_abc");
        assertThatThrownBy(() -> cipher.open("sources", "src_2", "secret", sealed))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("sources src_2 secret")
                .hasMessageNotContaining("whsec_abc");
        assertThatThrownBy(() -> cipher.open("sources", "src_1", "previous_secrets", sealed))
                .isInstanceOf(StoreException.class);
        assertThatThrownBy(() -> cipher.open("signing_secrets", "src_1", "secret", sealed))
                .isInstanceOf(StoreException.class);
    }

    @Test
    void everySealingOfOneValueDiffersByItsNonce() {
        SecretCipher cipher = new SecretCipher(MasterKeys.generate(random, T0));
        assertThat(cipher.seal("t", "r", "c", "same")).isNotEqualTo(cipher.seal("t", "r", "c", "same"));
    }

    @Test
    void aKeysetWithANewPrimaryOpensWhatTheOldKeySealedAndSealsWithTheNewOne() {
        MasterKeys old = MasterKeys.generate(random, T0);
        MasterKeys both = old.withNewPrimary(random, T0.plusSeconds(1));
        String byOld = new SecretCipher(old).seal("t", "r", "c", "x");
        SecretCipher next = new SecretCipher(both);

        assertThat(next.open("t", "r", "c", byOld)).isEqualTo("x");
        assertThat(SecretCipher.keyIdOf(next.seal("t", "r", "c", "x"))).isEqualTo(both.primaryId());
        assertThat(both.primaryId()).isNotEqualTo(old.primaryId());
        assertThatThrownBy(() -> new SecretCipher(old).open("t", "r", "c", next.seal("t", "r", "c", "x")))
                .hasMessageContaining("which the keyset lacks");
    }

    @Test
    void aKeysetRoundTripsThroughItsJsonAndOneKeyHasTheSameIdInTheEnvironment() {
        MasterKeys keys = MasterKeys.generate(random, T0).withNewPrimary(random, T0);
        MasterKeys back = MasterKeys.parse(keys.toJson(), "keys.json");
        assertThat(back.ids()).containsExactlyElementsOf(keys.ids());
        assertThat(back.primaryId()).isEqualTo(keys.primaryId());

        String one = MasterKeys.parse(keys.toJson(), "k").toJson();
        String base64 = one.replaceAll("(?s).*\"key\" : \"([^\"]+)\".*", "$1");
        assertThat(MasterKeys.ofBase64Key(base64).primaryId()).isIn(keys.ids());
        assertThat(keys.toString()).doesNotContain(base64);
    }

    @Test
    void malformedKeysetsAreRefusedInOneLineWithoutTheKey() {
        String good = MasterKeys.generate(random, T0).toJson();
        String key = good.replaceAll("(?s).*\"key\" : \"([^\"]+)\".*", "$1");
        for (String bad : new String[] {
            "not json",
            "{}",
            "{\"primary\":\"mk_00000000\",\"keys\":[]}",
            good.replace("\"primary\" : \"mk_", "\"primary\" : \"mk_x"),
            good.replaceFirst("\"id\" : \"mk_........\"", "\"id\" : \"mk_00000000\""),
            good.replace(key, Base64.getEncoder().encodeToString(new byte[16])),
            good.replace(key, "%%%")
        })
            assertThatThrownBy(() -> MasterKeys.parse(bad, "keys.json"))
                    .isInstanceOf(MasterKeyException.class)
                    .hasMessageStartingWith("keys.json")
                    .hasMessageNotContaining(key)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThatThrownBy(() -> MasterKeys.ofBase64Key("c2hvcnQ="))
                .isInstanceOf(MasterKeyException.class)
                .hasMessageContaining("IDEM_MASTER_KEY is 5 bytes, not 32");
    }

    @Test
    void aKeysetFileOthersCanReadIsRefusedAndAFileWrittenHereIsOwnerOnly(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("keys.json");
        MasterKeyFile.Loaded made = MasterKeyFile.loadOrCreate(file, random, T0);
        assertThat(made.created()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        MasterKeyFile.Loaded again = MasterKeyFile.loadOrCreate(file, random, T0);
        assertThat(again.created()).isFalse();
        assertThat(again.keys().primaryId()).isEqualTo(made.keys().primaryId());

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> MasterKeyFile.load(file))
                .isInstanceOf(MasterKeyException.class)
                .hasMessageContaining("open to others (rw-r--r--)");
    }
}
