package dev.idem.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Mode;
import dev.idem.core.SigningSecrets;
import dev.idem.core.Source;
import dev.idem.core.Tenant;
import dev.idem.core.store.Store;
import dev.idem.core.store.StoreException;
import dev.idem.core.store.StoreTx;
import dev.idem.store.JdbcStores;
import dev.idem.store.MasterKeyException;
import dev.idem.store.MasterKeys;
import dev.idem.store.Resealing;
import dev.idem.store.StoreConfig;
import dev.idem.store.testing.TestDatabase;
import dev.idem.wire.SigningSecret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets at rest on a real database: what a copy of it holds (a full dump, the file's bytes), what a sealed value copied
 * to another row does, and what start-up does with a keyset that lacks a key in use. Subclasses give the database and
 * its dump.
 */
abstract class SecretsAtRestContract {
    static final Tenant TENANT = new Tenant("proj_1", Mode.TEST);
    final SecureRandom random = new SecureRandom();
    final Instant now = Instant.now();

    @TempDir
    Path dir;

    TestDatabase db;

    /** A fresh database for this test. */
    abstract TestDatabase database(Path dir);

    /** Every byte a copy of the database holds (stores closed): a full dump, or the files. */
    abstract byte[] dump(TestDatabase db, Path dir) throws Exception;

    @BeforeEach
    void create() {
        db = database(dir);
    }

    @AfterEach
    void drop() {
        db.close();
    }

    StoreConfig withKeys(MasterKeys keys) {
        return db.config().withMasterKeys(keys);
    }

    Store open(MasterKeys keys) {
        return JdbcStores.open(withKeys(keys), Clock.systemUTC());
    }

    /** Signing secrets rotated twice, and a source whose secret was changed: every kind of sealed value. */
    List<String> writeSecrets(Store store) {
        SigningSecret a = SigningSecret.generate(random);
        SigningSecret b = SigningSecret.generate(random);
        SigningSecret c = SigningSecret.generate(random);
        store.useTransaction(tx -> tx.signingSecrets()
                .save(new SigningSecrets(TENANT, a).rotatedTo(b, now).rotatedTo(c, now.plusSeconds(1))));
        String provider = "shpss_" + HexFormat.of().formatHex(random.generateSeed(16));
        String providerOld = "shpss_" + HexFormat.of().formatHex(random.generateSeed(16));
        store.useTransaction(
                tx -> tx.sources().insert(source("src_1", providerOld).withSecret(provider, now)));
        return List.of(a.reveal(), b.reveal(), c.reveal(), provider, providerOld);
    }

    static Source source(String id, String secret) {
        Instant t = Instant.parse("2030-01-01T00:00:00Z");
        return new Source(
                id,
                TENANT,
                "shop",
                "hmac_sha256",
                secret,
                List.of(),
                "X-Sig",
                "hex",
                Duration.ofMinutes(5),
                "https://internal.example/shop",
                "auto",
                10,
                false,
                t,
                t);
    }

    /** A secret as plain text, base64 and hex, of its text and, for {@code whsec_}, of its key bytes. */
    static List<String> encodings(String secret) {
        List<String> out = new ArrayList<>();
        byte[] text = secret.getBytes(StandardCharsets.UTF_8);
        out.add(secret);
        out.add(Base64.getEncoder().encodeToString(text));
        out.add(Base64.getUrlEncoder().withoutPadding().encodeToString(text));
        out.add(HexFormat.of().formatHex(text));
        if (secret.startsWith("whsec_")) {
            byte[] key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
            out.add(secret.substring("whsec_".length()));
            out.add(Base64.getUrlEncoder().withoutPadding().encodeToString(key));
            out.add(HexFormat.of().formatHex(key));
        }
        return out;
    }

    void assertNoSecretIn(byte[] dump, List<String> secrets) {
        String text = new String(dump, StandardCharsets.ISO_8859_1);
        for (String s : secrets)
            for (String form : encodings(s))
                assertThat(text.contains(form))
                        .as("the dump holds a secret as " + form)
                        .isFalse();
    }

    @Test
    void aFullCopyOfTheDatabaseHoldsNoSecretInAnyEncoding() throws Exception {
        MasterKeys keys = MasterKeys.generate(random, now);
        List<String> secrets;
        try (Store store = open(keys)) {
            secrets = writeSecrets(store);
            assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().find(TENANT, "src_1"))
                            .orElseThrow()
                            .secretsAt(now))
                    .containsExactly(secrets.get(3), secrets.get(4));
        }
        byte[] dump = dump(db, dir);
        assertThat(new String(dump, StandardCharsets.ISO_8859_1))
                .contains("src_1")
                .contains("v1:" + keys.primaryId());
        assertNoSecretIn(dump, secrets);
    }

    @Test
    void aSealedSecretCopiedToAnotherRowDoesNotOpenThere() throws Exception {
        try (Store store = open(MasterKeys.generate(random, now))) {
            store.useTransaction(tx -> tx.sources().insert(source("src_a", "secret-a")));
            store.useTransaction(tx -> tx.sources().insert(source("src_b", "secret-b")));
            sql("UPDATE sources SET secret = (SELECT secret FROM sources WHERE id = 'src_a') WHERE id = 'src_b'");

            assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().find(TENANT, "src_a"))
                            .orElseThrow()
                            .secret())
                    .isEqualTo("secret-a");
            assertThatThrownBy(() ->
                            store.inReadTransaction((StoreTx tx) -> tx.sources().findForIngest("src_b")))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("sources src_b secret does not open")
                    .hasMessageNotContaining("secret-a");
        }
    }

    @Test
    void aKeysetLackingAKeyInUseIsRefusedNamingItAndNothingIsWritten() throws Exception {
        MasterKeys a = MasterKeys.generate(random, now);
        try (Store store = open(a)) {
            writeSecrets(store);
        }
        List<String> before = column("SELECT secret FROM sources UNION ALL SELECT current_secret FROM signing_secrets");
        MasterKeys wrong = MasterKeys.generate(random, now);
        assertThatThrownBy(() -> open(wrong))
                .isInstanceOf(MasterKeyException.class)
                .hasMessageContaining("lacks key id " + a.primaryId());
        assertThat(column("SELECT secret FROM sources UNION ALL SELECT current_secret FROM signing_secrets"))
                .isEqualTo(before);
    }

    @Test
    void rewrapMovesEveryValueToTheNewPrimaryAndThenTheOldKeyCanGo() throws Exception {
        MasterKeys a = MasterKeys.generate(random, now);
        List<String> secrets;
        try (Store store = open(a)) {
            secrets = writeSecrets(store);
        }
        MasterKeys ab = MasterKeys.parse(a.toJson(), "a").withNewPrimary(random, now);
        try (Store store = open(ab)) {
            Resealing r = JdbcStores.resealing(store);
            assertThat(r.census().keyIds()).containsExactly(a.primaryId());
            assertThat(r.rewrap((column, n) -> {}).resealed()).isEqualTo(4);
            assertThat(r.census().keyIds()).containsExactly(ab.primaryId());
            assertThat(r.rewrap((column, n) -> {}).resealed()).isZero();
        }
        MasterKeys onlyB = MasterKeys.parse(
                ab.toJson().replaceAll("(?s)\\{\\s*\"id\" : \"" + a.primaryId() + "\"[^}]*\\},?", ""), "b");
        assertThat(onlyB.ids()).containsExactly(ab.primaryId());
        try (Store store = open(onlyB)) {
            SigningSecrets back = store.inReadTransaction(
                            (StoreTx tx) -> tx.signingSecrets().find(TENANT))
                    .orElseThrow();
            assertThat(back.activeAt(now.plusSeconds(2)).stream().map(SigningSecret::reveal))
                    .containsExactly(secrets.get(2), secrets.get(1), secrets.get(0));
        }
    }

    @Test
    void secretsInPlainTextFromBeforeTheUpgradeAreSealedAtTheFirstStartWithAKey() throws Exception {
        // the schema as the last version before sealed secrets left it
        var flyway = org.flywaydb.core.Flyway.configure()
                .dataSource(
                        db.config().jdbcUrl(), db.config().user(), db.config().password())
                .locations("classpath:db/migration/" + db.config().dialect());
        String before = java.util.Arrays.stream(flyway.load().info().all())
                .map(m -> m.getVersion())
                .filter(v -> !v.isAtLeast("30"))
                .max(Comparable::compareTo)
                .orElseThrow()
                .getVersion();
        flyway.target(before).load().migrate();
        String current = SigningSecret.generate(random).reveal();
        String previous = SigningSecret.generate(random).reveal();
        long expires = now.plus(Duration.ofHours(3)).toEpochMilli();
        sql("INSERT INTO projects (id, name, created_at) VALUES ('proj_1', 'default', 0)");
        sql("INSERT INTO signing_secrets (project_id, mode, current_secret, previous_secret, previous_expires_at) "
                + "VALUES ('proj_1', 'test', '" + current + "', '" + previous + "', " + expires + ")");
        sql("INSERT INTO sources (id, project_id, mode, name, scheme, secret, previous_secret, previous_expires_at, "
                + "tolerance_ms, destination, dedup, rate_limit, created_at, updated_at) VALUES ('src_1', 'proj_1', "
                + "'test', 'gh', 'github', 'gh-secret-now', 'gh-secret-before', " + expires + ", 300000, "
                + "'https://internal.example/gh', 'auto', 10, 0, 0)");

        MasterKeys keys = MasterKeys.generate(random, now);
        try (Store store = open(keys)) {
            assertThat(store
                            .inReadTransaction(
                                    (StoreTx tx) -> tx.signingSecrets().find(TENANT))
                            .orElseThrow()
                            .activeAt(now)
                            .stream()
                            .map(SigningSecret::reveal))
                    .containsExactly(current, previous);
            assertThat(store.inReadTransaction((StoreTx tx) -> tx.sources().findForIngest("src_1"))
                            .orElseThrow()
                            .secretsAt(now))
                    .containsExactly("gh-secret-now", "gh-secret-before");
            // columns with no rows (endpoint secrets here) count nothing; the four plaintext values
            // written above are all sealed under the primary
            var byColumn = JdbcStores.resealing(store).census().byColumn().values();
            assertThat(byColumn)
                    .allSatisfy(counts -> assertThat(counts.keySet()).isSubsetOf(keys.primaryId()));
            assertThat(byColumn.stream()
                            .flatMap(counts -> counts.values().stream())
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(4);
        }
        assertNoSecretIn(dump(db, dir), List.of(current, previous, "gh-secret-now", "gh-secret-before"));
    }

    List<String> column(String query) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    void sql(String statement) throws Exception {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    Connection connect() throws Exception {
        Properties p = new Properties();
        if (db.config().user() != null) p.setProperty("user", db.config().user());
        if (db.config().password() != null)
            p.setProperty("password", db.config().password());
        p.setProperty("busy_timeout", "30000");
        return DriverManager.getConnection(db.config().jdbcUrl(), p);
    }
}
