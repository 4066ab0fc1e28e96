package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Mode;
import dev.idem.core.SecretRotation;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Source;
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
import java.util.List;
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
        assertThat(before.out()).contains("signing_secrets.current_secret: 250 under " + first);
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
    void rewrapWithAKeysetLackingTheKeyInUseIsRefusedNamingItAndReSealsNothing() throws Exception {
        Path keys = dir.resolve("keys.json");
        Path wrong = dir.resolve("wrong.json");
        Path data = dir.resolve("data");
        idem("keys", "master", "generate", "--out", keys.toString());
        idem("keys", "master", "generate", "--out", wrong.toString());
        String inUse = MasterKeyFile.load(keys).primaryId();
        SigningSecret secret = SigningSecret.generate(new SecureRandom());
        try (Store store =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            store.useTransaction(tx ->
                    tx.signingSecrets().save(new SigningSecrets(new Tenant("proj_1", Mode.TEST), secret)));
        }
        byte[] before = Files.readAllBytes(data.resolve("idem.db"));

        Cli rewrap =
                idem("keys", "master", "rewrap", "--data-dir", data.toString(), "--master-key-file", wrong.toString());

        assertThat(rewrap.code()).isEqualTo(2);
        assertThat(rewrap.err()).contains("lacks key id " + inUse).doesNotContain(secret.reveal());
        assertThat(rewrap.out()).doesNotContain("re-sealed");
        assertThat(Files.readAllBytes(data.resolve("idem.db")))
                .as("the store's file")
                .isEqualTo(before);
        try (Store store =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            assertThat(store.inReadTransaction(
                                    (StoreTx tx) -> tx.signingSecrets().find(new Tenant("proj_1", Mode.TEST)))
                            .orElseThrow()
                            .current())
                    .isEqualTo(secret);
        }
    }

    @Test
    void statusNamesEverySecretColumnAndHowManyOfItsValuesEachKeySeals() throws Exception {
        Path keys = dir.resolve("keys.json");
        Path data = dir.resolve("data");
        idem("keys", "master", "generate", "--out", keys.toString());
        String first = MasterKeyFile.load(keys).primaryId();
        SecureRandom random = new SecureRandom();
        try (Store store =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            store.useTransaction(tx -> {
                for (int i = 0; i < 3; i++)
                    tx.signingSecrets()
                            .save(new SigningSecrets(
                                    new Tenant("proj_" + i, Mode.TEST), SigningSecret.generate(random)));
                for (int i = 0; i < 4; i++) tx.sources().insert(source("src_old_" + i, List.of()));
            });
        }
        idem("keys", "master", "generate", "--add-to", keys.toString());
        idem("keys", "master", "promote", "--keyset", keys.toString());
        String second = MasterKeyFile.load(keys).primaryId();
        try (Store store =
                JdbcStores.open(StoreConfig.sqlite(data).withMasterKeys(MasterKeyFile.load(keys)), Clock.systemUTC())) {
            Tenant rotated = new Tenant("proj_0", Mode.TEST);
            store.useTransaction(tx -> tx.signingSecrets()
                    .save(tx.signingSecrets()
                            .find(rotated)
                            .orElseThrow()
                            .rotatedTo(SigningSecret.generate(random), java.time.Instant.now())));
            store.useTransaction(tx -> {
                tx.sources().insert(source("src_new_0", List.of()));
                tx.sources()
                        .insert(source(
                                "src_new_1",
                                List.of(new SecretRotation.Retired<>(
                                        "replaced", java.time.Instant.now().plusSeconds(3600)))));
            });
        }
        String[] store = {"--data-dir", data.toString(), "--master-key-file", keys.toString()};

        Cli status = idem(concat(new String[] {"keys", "master", "status"}, store));
        assertThat(status.code()).as(status.err()).isZero();
        String[] ids = new java.util.TreeSet<>(List.of(first, second)).toArray(String[]::new);
        assertThat(status.out().lines().toList())
                .containsExactly(
                        "primary " + second + "; keyset "
                                + String.join(", ", MasterKeyFile.load(keys).ids()),
                        "signing_secrets.current_secret: " + both(ids, first, 2, second, 1),
                        "signing_secrets.previous_secrets: 1 under " + second,
                        "sources.secret: " + both(ids, first, 4, second, 2),
                        "sources.previous_secrets: 1 under " + second,
                        "endpoints.secret: nothing stored",
                        "endpoints.previous_secrets: nothing stored",
                        "6 not under the primary");

        Cli json = idem(concat(new String[] {"keys", "master", "status", "--json"}, store));
        var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
        assertThat(root.get("sealed").get("sources.secret").get(first).asLong()).isEqualTo(4);
        assertThat(root.get("sealed").get("sources.secret").get(second).asLong())
                .isEqualTo(2);
        assertThat(root.get("sealed")
                        .get("signing_secrets.previous_secrets")
                        .get(second)
                        .asLong())
                .isEqualTo(1);
        assertThat(root.get("sealed").get("endpoints.secret").size()).isZero();
        assertThat(root.get("not_under_primary").asLong()).isEqualTo(6);
        assertThat(root.get("unused")).isEmpty();
    }

    /** Two keys' counts in the order status prints them (by key id). */
    private static String both(String[] sortedIds, String a, int na, String b, int nb) {
        java.util.Map<String, Integer> n = java.util.Map.of(a, na, b, nb);
        return n.get(sortedIds[0]) + " under " + sortedIds[0] + ", " + n.get(sortedIds[1]) + " under " + sortedIds[1];
    }

    private static Source source(String id, List<SecretRotation.Retired<String>> retired) {
        java.time.Instant t = java.time.Instant.parse("2030-01-01T00:00:00Z");
        return new Source(
                id,
                new Tenant("proj_0", Mode.TEST),
                id,
                "hmac_sha256",
                "provider-secret-" + id,
                retired,
                "X-Sig",
                "hex",
                java.time.Duration.ofMinutes(5),
                "https://internal.example/x",
                "auto",
                10,
                false,
                t,
                t);
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
