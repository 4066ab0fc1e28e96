package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Mode;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreTx;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeyFile;
import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestDatabase;
import dev.idem.store.testing.TestStores;
import dev.idem.wire.SigningSecret;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem keys master …} and the master key options of {@code serve}, in process, on real stores. */
class MasterKeyCommandTest {
    @TempDir
    Path dir;

    record Cli(int code, String out, String err) {}

    static Cli idem(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = IdemCommand.commandLine()
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    @Test
    void aPostgresNodeWithoutAMasterKeyRefusesInOneLineNamingTheCommandThatMakesOne() {
        try (TestDatabase db = TestStores.postgresDatabase()) {
            Cli c = idem("serve", "--port", "0", "--database-url", db.config().jdbcUrl());
            assertThat(c.code()).isEqualTo(2);
            assertThat(c.err().strip()).startsWith("idem: no master key").contains("./idem keys master generate");
            assertThat(c.err().strip().lines()).hasSize(1);
        }
    }

    @Test
    void aKeysetFileOthersCanReadOrThatIsMalformedIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path keys = dir.resolve("keys.json");
        assertThat(idem("keys", "master", "generate", "--out", keys.toString()).code())
                .isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)))
                .isEqualTo("rw-------");
        Path data = dir.resolve("data");

        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-r--r--"));
        Cli open = idem("serve", "--port", "0", "--data-dir", data.toString(), "--master-key-file", keys.toString());
        assertThat(open.code()).isEqualTo(2);
        assertThat(open.err()).contains("is open to others (rw-r--r--)");

        Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(keys, "{\"primary\": \"mk_1\"}");
        Cli bad = idem("serve", "--port", "0", "--data-dir", data.toString(), "--master-key-file", keys.toString());
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err().strip())
                .isEqualTo("idem: " + keys + " is not a keyset: \"keys\" must be a non-empty array");
        assertThat(data).doesNotExist();
    }

    @Test
    void rotationAddsAPrimaryThenRewrapMovesEverySecretToItAndStatusSaysTheOldKeySealsNothing() throws Exception {
        Path keys = dir.resolve("keys.json");
        Path data = dir.resolve("data");
        idem("keys", "master", "generate", "--out", keys.toString());
        String first = MasterKeyFile.load(keys).primaryId();
        SigningSecret secret = SigningSecret.generate(new SecureRandom());
        try (Store store =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            for (int i = 0; i < 250; i++) {
                Tenant t = new Tenant("proj_" + i, Mode.TEST);
                store.useTransaction(tx -> tx.signingSecrets().save(new SigningSecrets(t, secret)));
            }
        }

        Cli added = idem("keys", "master", "generate", "--add-to", keys.toString());
        assertThat(added.code()).as(added.err()).isZero();
        assertThat(MasterKeyFile.load(keys).primaryId())
                .as("a new key is not primary yet")
                .isEqualTo(first);
        String second = MasterKeyFile.load(keys).newestId();
        Cli promoted = idem("keys", "master", "promote", "--keyset", keys.toString());
        assertThat(promoted.code()).as(promoted.err()).isZero();
        assertThat(MasterKeyFile.load(keys).primaryId()).isEqualTo(second).isNotEqualTo(first);
        String[] store = {"--data-dir", data.toString(), "--master-key-file", keys.toString()};

        Cli before = idem(concat(new String[] {"keys", "master", "status"}, store));
        assertThat(before.out()).contains("signing_secrets.current_secret: {" + first + "=250}");
        assertThat(before.out()).contains("250 not under the primary");

        Cli rewrap = idem(concat(new String[] {"keys", "master", "rewrap"}, store));
        assertThat(rewrap.code()).as(rewrap.err()).isZero();
        assertThat(rewrap.out())
                .contains("signing_secrets.current_secret: 200 re-sealed")
                .contains("done: 250 re-sealed");

        Cli after = idem(concat(new String[] {"keys", "master", "status", "--json"}, store));
        assertThat(after.out())
                .contains("\"not_under_primary\":0")
                .contains("\"unused\":[\"" + first + "\"]")
                .doesNotContain(secret.reveal())
                .doesNotContain(Files.readString(keys).replaceAll("(?s).*\"key\" : \"([^\"]+)\".*", "$1"));
        try (Store reopened =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            assertThat(reopened.inReadTransaction(
                                    (StoreTx tx) -> tx.signingSecrets().find(new Tenant("proj_7", Mode.TEST)))
                            .orElseThrow()
                            .current())
                    .isEqualTo(secret);
        }
    }

    @Test
    void theEmbeddedStoresFirstStartMakesItsKeysetOwnerOnlyAndSaysSoInOneLine() {
        Path data = dir.resolve("data");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        var keys = new MasterKeyOptions()
                .resolve(data, null, new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        Path file = data.resolve(MasterKeyFile.DEFAULT_NAME).toAbsolutePath();
        assertThat(out.toString())
                .isEqualTo("idem: generated the master key " + keys.primaryId() + " into " + file
                        + " (owner-only); back it up apart from the database, which cannot be read without it"
                        + System.lineSeparator());
        java.io.ByteArrayOutputStream again = new java.io.ByteArrayOutputStream();
        assertThat(new MasterKeyOptions()
                        .resolve(data, null, new java.io.PrintStream(again))
                        .primaryId())
                .isEqualTo(keys.primaryId());
        assertThat(again.toString()).isEmpty();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
